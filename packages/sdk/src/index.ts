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
export { Download } from './downloads.ts';
export { ApiError, ConnectionError, NotReadyError, RenderError } from './errors.ts';
export * from './generated.ts';
export type { ClientOptions, RequestOptions } from './http.ts';
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
  verifyWebhook,
  eventObject,
  isStaleEvent,
  WebhookVerificationError,
  type EventObject,
  type LegacyCallback,
  type WebhookEvent,
} from './webhooks.ts';
