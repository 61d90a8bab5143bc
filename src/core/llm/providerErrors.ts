// The failures that differ by cloud, as the same core errors the Anthropic API's map to, so retries and
// reactive compaction work alike: a credential that is missing or expired (with the command that fixes it,
// never a bare 403), Bedrock's throttling and validation exceptions, Vertex's quota errors, and a model id
// the provider does not take. Messages name the provider and never carry a key, token or signature.
import {
  AuthError,
  InvalidRequestError,
  OverloadedError,
  PromptTooLongError,
  RateLimitError,
  ServerError,
  parsePromptTooLong,
  type ModelError,
  type ModelErrorDetails,
} from './errors';
import { providerName } from './providerConfig';
import type { ProviderConfig } from './providerTypes';

/** One failed answer from a cloud, as read off the SDK's error. */
export interface CloudFailure {
  /** HTTP status; undefined for an error event inside a 200 stream. */
  status?: number;
  /** The Anthropic `error.type`, or Bedrock's exception name (`ThrottlingException`, from the body or header). */
  type?: string;
  /** Google's `error.status` (`RESOURCE_EXHAUSTED`, `PERMISSION_DENIED`, ...). */
  googleStatus?: string;
  message?: string;
  /** The model id that was sent (the provider's form). */
  model?: string;
  details: ModelErrorDetails;
}

/**
 * A credential that could not be had, found anywhere in `e`'s cause chain (the clients wrap the chain's
 * failure in a connection error): an AuthError that names the provider and the fix, or undefined.
 */
export function credentialFailure(e: unknown, provider: ProviderConfig): AuthError | undefined {
  if (provider.id === 'anthropic') return undefined;
  const chain = causes(e);
  const found = chain.find((c) => CREDENTIAL_FAILURE[provider.id].test(`${c.name}: ${c.message}`));
  if (!found) return undefined;
  const reason = scrub(firstLine(innermostReason(chain) ?? found.message));
  const expired = chain.some((c) => EXPIRED.test(c.message));
  return new AuthError(`${credentialsText(provider, expired ? 'expired' : 'missing', reason)}`, { cause: e });
}

const CREDENTIAL_FAILURE: Record<Exclude<ProviderConfig['id'], 'anthropic'>, RegExp> = {
  bedrock: /CredentialsProviderError|TokenProviderError|^ProviderError|Failed to resolve AWS credentials/,
  vertex: /Failed to acquire Google OAuth credentials|Could not load the default credentials|invalid_grant/,
  foundry:
    /CredentialUnavailableError|AuthenticationError|AggregateAuthenticationError|Failed to get token from azureADTokenProvider/,
};

const EXPIRED = /expired|refresh this SSO session|invalid_grant|invalid_rapt|reauth/i;

/**
 * Why the chain failed: the innermost cause (the outer ones are wrappers saying only that it failed); for
 * Azure's chained credential, what each credential in it said.
 */
function innermostReason(chain: Error[]): string | undefined {
  const last = chain[chain.length - 1];
  const errors = (last as Error & { errors?: unknown }).errors;
  if (Array.isArray(errors) && errors.length > 0)
    return errors.map((x) => firstLine(x instanceof Error ? x.message : String(x))).join('; ');
  return last?.message;
}

/**
 * A cloud's error answer as a core error, or undefined to classify it as the Anthropic API's (an
 * Anthropic-shaped error passed through, a 5xx). Only for Bedrock, Vertex and Foundry.
 */
export function cloudApiFailure(provider: ProviderConfig, f: CloudFailure): ModelError | undefined {
  if (provider.id === 'anthropic') return undefined;
  const name = providerName(provider.id);
  const type = (f.type ?? '').toLowerCase();
  const message = f.message ?? '';
  const said = message ? ` (${name} said: ${scrub(message)})` : '';
  const details = { ...f.details, apiMessage: message || undefined };

  if (type === 'throttlingexception' || f.googleStatus === 'RESOURCE_EXHAUSTED' || f.status === 429) {
    if (type === 'modelnotreadyexception')
      return new OverloadedError(`${name}: the model is not ready yet${said}. Engram tries again.`, details);
    return new RateLimitError(
      `${name} is limiting requests${said}. Engram waits and tries again; if it keeps happening, ` +
        `ask for a higher quota for the model in ${quotaPlace(provider)}.`,
      details,
    );
  }
  if (type === 'modelnotreadyexception' || type === 'serviceunavailableexception' || f.status === 503)
    return new OverloadedError(`${name} is busy${said}. Try again in a little while.`, details);
  if (/^(internalserverexception|modeltimeoutexception|modelstreamerrorexception|modelerrorexception)$/.test(type))
    return new ServerError(`${name} had an internal error${said}. Try again.`, details);
  if (isPromptTooLong(message)) {
    const numbers = parsePromptTooLong(message);
    return new PromptTooLongError(
      `The conversation is too long for the model on ${name}${numbers ? ` (${numbers.promptTokens} tokens, the limit is ${numbers.maxTokens})` : said}. ` +
        'Compact it (/compact) or start a new chat.',
      numbers?.promptTokens,
      numbers?.maxTokens,
      details,
    );
  }
  if (isModelRejected(f, type, message)) return modelRejected(provider, f.model, said, details);
  if (f.status === 401 || type === 'unrecognizedclientexception' || type === 'expiredtokenexception') {
    const expired = type === 'expiredtokenexception' || EXPIRED.test(message);
    return new AuthError(credentialsText(provider, expired ? 'expired' : 'rejected', scrub(message)), details);
  }
  if (f.status === 403 || type === 'accessdeniedexception' || f.googleStatus === 'PERMISSION_DENIED') {
    if (/signature|security token|expired/i.test(message))
      return new AuthError(
        credentialsText(provider, EXPIRED.test(message) ? 'expired' : 'rejected', scrub(message)),
        details,
      );
    return new AuthError(`${name}: the account may not use this model${said}. ${accessFix(provider)}`, details);
  }
  return undefined;
}

function isPromptTooLong(message: string): boolean {
  return /prompt is too long|input is too long|too many input tokens|exceeds? the (maximum )?context/i.test(message);
}

function isModelRejected(f: CloudFailure, type: string, message: string): boolean {
  if (f.status === 404 || type === 'resourcenotfoundexception' || f.googleStatus === 'NOT_FOUND') return true;
  return /model identifier is invalid|on-demand throughput isn.t supported|model .*(not found|does not exist)|unknown model|deployment .*(not found|does not exist)/i.test(
    message,
  );
}

/** The model id the provider did not take, where it came from, and how to choose another. */
function modelRejected(
  provider: ProviderConfig,
  model: string | undefined,
  said: string,
  details: ModelErrorDetails,
): ModelError {
  const name = providerName(provider.id);
  const which = model ? `the model id "${model}"` : 'the model id';
  const where =
    provider.id === 'bedrock' ? ` in ${provider.region}` : provider.id === 'vertex' ? ` in ${provider.region}` : '';
  return new InvalidRequestError(
    `${name} did not accept ${which}${where}${said}. Choose a model it offers with "Engram: Choose Model" ` +
      '(or --model, engram.model)' +
      (provider.id === 'bedrock' ? ', e.g. an inference profile id such as us.anthropic.claude-sonnet-4-6' : '') +
      (provider.id === 'foundry' ? ': the model is the name of a deployment in your Foundry resource' : '') +
      ', and check that the model is enabled for your account.',
    details,
  );
}

/** What is wrong with the credentials, and the command that fixes it. */
function credentialsText(provider: ProviderConfig, what: 'missing' | 'expired' | 'rejected', reason: string): string {
  const name = providerName(provider.id);
  const because = reason ? ` (${reason})` : '';
  switch (provider.id) {
    case 'bedrock': {
      const login = provider.profile ? `aws sso login --profile ${provider.profile}` : 'aws sso login';
      const state = {
        missing: 'no AWS credentials were found',
        expired: 'the AWS credentials have expired',
        rejected: 'AWS did not accept the credentials',
      }[what];
      return `${name}: ${state}${because}. Run \`${login}\` (or \`aws configure\`), or set AWS_PROFILE to a profile that has credentials.`;
    }
    case 'vertex': {
      const state = {
        missing: 'no Google credentials were found',
        expired: 'the Google credentials have expired or were revoked',
        rejected: 'Google did not accept the credentials',
      }[what];
      return `${name}: ${state}${because}. Run \`gcloud auth application-default login\`.`;
    }
    case 'foundry': {
      const state = {
        missing: 'no Azure credentials were found',
        expired: 'the Azure credentials have expired',
        rejected: 'the Foundry API key or Azure token was not accepted',
      }[what];
      return `${name}: ${state}${because}. Set ANTHROPIC_FOUNDRY_API_KEY or run \`az login\`.`;
    }
    case 'anthropic':
      return `The API key was rejected${because}. Set a valid key with "Engram: Set API Key" or ANTHROPIC_API_KEY.`;
  }
}

function accessFix(provider: ProviderConfig): string {
  switch (provider.id) {
    case 'bedrock':
      return 'Enable the model under "Model access" in the Bedrock console and allow bedrock:InvokeModel for your AWS identity.';
    case 'vertex':
      return `Enable the model in Vertex AI Model Garden for project ${provider.projectId ?? '(unset)'} and grant your account roles/aiplatform.user.`;
    case 'foundry':
      return 'Give your Azure identity a role on the Foundry resource (e.g. Azure AI User), or use its API key.';
    case 'anthropic':
      return "Check the key's workspace and model access.";
  }
}

function quotaPlace(provider: ProviderConfig): string {
  if (provider.id === 'bedrock') return `Service Quotas (Amazon Bedrock, ${provider.region})`;
  if (provider.id === 'vertex')
    return `the Google Cloud console's Quotas page (project ${provider.projectId ?? '(unset)'})`;
  return 'the Foundry resource';
}

/** The variable (and setting) that moves where a provider's requests go, for "Could not reach …". */
export function baseUrlHint(provider: ProviderConfig): string {
  switch (provider.id) {
    case 'anthropic':
      return 'the base URL (engram.baseUrl, ANTHROPIC_BASE_URL)';
    case 'bedrock':
      return `the region (${provider.region}) and ANTHROPIC_BEDROCK_BASE_URL (engram.bedrock.baseUrl)`;
    case 'vertex':
      return `the region (${provider.region}) and ANTHROPIC_VERTEX_BASE_URL (engram.vertex.baseUrl)`;
    case 'foundry':
      return 'ANTHROPIC_FOUNDRY_RESOURCE or ANTHROPIC_FOUNDRY_BASE_URL (engram.foundry.resource, engram.foundry.baseUrl)';
  }
}

/** `e` and its causes, outermost first. */
function causes(e: unknown): Error[] {
  const out: Error[] = [];
  for (let c: unknown = e; c instanceof Error && out.length < 10; c = c.cause) out.push(c);
  return out;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0]?.trim() ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** Drops anything shaped like a credential from a cloud's text (a signature, a token, a key). */
export function scrub(text: string): string {
  return text
    .replace(
      /(Bearer|Signature=|Credential=|X-Amz-Security-Token=|access_token["=: ]+|sig=)\s*[^\s,"&]+/gi,
      '$1[redacted]',
    )
    .replace(/\b(AKIA|ASIA)[A-Z0-9]{12,}\b/g, '[redacted]')
    .replace(/\bya29\.[\w-]+/g, '[redacted]')
    .replace(/\bsk-ant-[\w-]+/g, '[redacted]');
}
