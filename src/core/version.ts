// Engram's version, recorded on transcript lines and shown by `engram --version`. Keep in step with
// package.json (a unit test checks).
export const ENGRAM_VERSION = '0.1.0';
