export {
  Client,
  type ArgsOf,
  type BulkUploadOptions,
  type BulkUploadResult,
  type DownloadOptions,
  type MethodOf,
  type Render,
  type ResourceApi,
  type ResultOf,
  type UploadProgress,
  type WaitForRenderOptions,
} from './client.ts';
export { Download, type NodeReadableLike } from './downloads.ts';
export {
  ApiError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  NotReadyError,
  PermissionError,
  RateLimitError,
  RenderError,
  ServerError,
  ValidationError,
  type ValidationDetail,
} from './errors.ts';
export * from './generated.ts';
export { type ClientOptions, type RequestOptions, USER_AGENT } from './http.ts';
export { VERSION } from './version.ts';
export { Paginator } from './pagination.ts';
export {
  parseRateLimit,
  parseRateLimitPolicy,
  type RateLimitPolicy,
  type RateLimitRemaining,
  type RateLimitState,
} from './ratelimit.ts';
export type { UploadSource } from './uploads.ts';
export {
  LegacyCallbackError,
  parseLegacyCallback,
  signWebhook,
  verifyWebhook,
  eventObject,
  isStaleEvent,
  WebhookVerificationError,
  type EventObject,
  type LegacyCallback,
  type WebhookEvent,
} from './webhooks.ts';
