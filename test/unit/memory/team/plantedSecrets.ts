// Secrets of the kinds people leak into notes, for the team-memory tests: each must be found by the
// scanner's rules alone (no credential of this process), and never reach the server.
export const PLANTED_SECRETS = {
  anthropic: `sk-ant-api03-${'A1b2C3d4'.repeat(10)}AA`,
  aws: 'aws_secret_access_key = "q7Lm2Vx9Rt4Wb8Nc1Kd6Hf3Jg5Ps0YzAeUiOoTrE"',
  github: `ghp_${'a1B2'.repeat(9)}`,
  privatekey: `-----BEGIN RSA PRIVATE KEY-----\n${'MIIEowIBAAKCAQEA7xQz'.repeat(8)}\n-----END RSA PRIVATE KEY-----`,
} as const;

/** A topic file with `secret` on its line `line` (1-based; the front matter takes lines 1-5). */
export function topicWithSecret(name: string, secret: string): { text: string; line: number } {
  const text = `---\nname: ${name}\ndescription: how to reach ${name}\ntype: reference\n---\nConnect like this:\n${secret}\nThat is all.\n`;
  return { text, line: 7 };
}
