import { randomBytes } from 'node:crypto';
import { ApiError } from '../../platform/errors.ts';
import type { OrganizationService } from '../organization/service.ts';
import type { StorefrontsDeps } from './deps.ts';
import type { Operations } from './operations.ts';
import { storefrontsRepo as repo } from './repo.ts';
import type { ShopifyApp } from './shopify/app.ts';

type Org = Pick<OrganizationService, 'createStore'>;

const storeCode = () => `SH${randomBytes(6).toString('hex').toUpperCase().slice(0, 10)}`;

/**
 * Connecting a Shopify store: the install URL with a signed state, then the callback that checks
 * Shopify's hmac, exchanges the code for an offline token, makes (or reconnects) the store and
 * queues the shop's setup (fulfillment service, webhook subscriptions).
 */
export function connecting(deps: StorefrontsDeps, app: () => Promise<ShopifyApp>, ops: Operations, organization: Org) {
  const { db, clock } = deps;
  return {
    async installUrl(
      orgId: string,
      input: { shop: string; name: string; accountId: string; brandId: string },
    ): Promise<string> {
      const shopify = await app();
      const shop = shopify.shopDomain(input.shop);
      if (!shop)
        throw new ApiError(
          'shopify_shop_invalid',
          `${input.shop} is not a shop address such as your-store.myshopify.com`,
        );
      return shopify.installUrl(
        { organizationId: orgId, accountId: input.accountId, brandId: input.brandId, name: input.name, shop },
        Date.now(),
      );
    },

    /** The OAuth callback; returns the store's reference. */
    async complete(query: Record<string, string>): Promise<{ storeReference: string; shop: string }> {
      const shopify = await app();
      const intent = await shopify.verifyCallback(query, Date.now());
      if (!intent)
        throw new ApiError(
          'shopify_oauth_failed',
          'The Shopify callback is not valid (hmac, state or shop) or has expired; connect again',
        );
      let token: { accessToken: string; scopes: string };
      try {
        token = await shopify.exchangeCode(intent.shop, query.code);
      } catch (err) {
        throw new ApiError(
          'shopify_oauth_failed',
          `Shopify did not complete the connection: ${(err as Error).message}`,
        );
      }
      const existing = await repo.connectionByShop(db, intent.shop);
      if (existing && existing.organization_id !== intent.organizationId)
        throw new ApiError('shopify_oauth_failed', `${intent.shop} is connected to another organization`);
      const storeId =
        existing?.store_id ??
        (
          await organization.createStore(intent.organizationId, {
            name: intent.name.slice(0, 100) || intent.shop,
            code: storeCode(),
            integration: 'shopify',
            accountReference: intent.accountId,
            defaultBrandReference: intent.brandId,
          })
        ).reference;
      await db.tx(async (tx) => {
        await repo.upsertConnection(tx, {
          store_id: storeId,
          organization_id: intent.organizationId,
          platform: 'shopify',
          shop_domain: intent.shop,
          token_sealed: deps.box.seal(token.accessToken),
          scopes: token.scopes,
          status: 'connected',
          fulfillment_service_id: existing?.fulfillment_service_id ?? null,
          location_id: existing?.location_id ?? null,
          connected_at: clock.now(),
        });
        await ops.enqueue(tx, storeId, intent.organizationId, { kind: 'setup', subject: intent.shop, payload: {} });
      });
      deps.worker.nudge();
      return { storeReference: storeId, shop: intent.shop };
    },
  };
}
