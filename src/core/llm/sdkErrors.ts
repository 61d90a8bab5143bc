// The SDK's error classes, recognised whichever bundle threw them. The cloud clients live in their own
// lazily loaded bundle (cloudChunk.ts, dist/clouds.js) with their own copy of @anthropic-ai/sdk, so an
// error from Bedrock, Vertex or Foundry is an instance of that copy's classes, not of the ones imported
// here: `instanceof` alone would take a throttled Bedrock request for a request that was never built.
import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';

export interface SdkErrorClasses {
  APIError: typeof APIError;
  APIConnectionError: typeof APIConnectionError;
  APIUserAbortError: typeof APIUserAbortError;
}

const families: SdkErrorClasses[] = [{ APIError, APIConnectionError, APIUserAbortError }];

/** Adds another bundle's copy of the classes (the cloud chunk's, once it is loaded). */
export function addSdkErrorClasses(classes: SdkErrorClasses): void {
  if (!families.some((f) => f.APIError === classes.APIError)) families.push(classes);
}

/** An error answer of the API (or a failed connection, which the SDK derives from it). */
export function isApiError(e: unknown): e is APIError {
  return families.some((f) => e instanceof f.APIError);
}

export function isConnectionError(e: unknown): e is APIConnectionError {
  return families.some((f) => e instanceof f.APIConnectionError);
}

export function isUserAbort(e: unknown): boolean {
  return families.some((f) => e instanceof f.APIUserAbortError);
}
