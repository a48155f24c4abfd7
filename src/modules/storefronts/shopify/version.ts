/**
 * The Admin API version every call, webhook subscription and test stand-in uses: the one place it
 * is named. 2026-07 is the newest stable version that the official Node library supporting this
 * service's Node 20 names (@shopify/shopify-api 13); see docs/shopify.md.
 */
export const SHOPIFY_API_VERSION = '2026-07';

/** Where Shopify sends a shop back after the OAuth grant (the app's redirect URL). */
export const CALLBACK_PATH = '/integrations/shopify/callback';
