import type { TestApp } from '../support/app.ts';
import type { ShopifyStandIn } from '../support/shopify-standin.ts';

/**
 * Connects the first demo organization's store to a stand-in shop the way a partner does: the
 * install URL, the merchant's approval on "Shopify", the signed callback. Returns the store reference.
 */
export async function connectShop(t: TestApp, shopify: ShopifyStandIn, shop = 'case-lovers.myshopify.com') {
  const org = t.seed.organizations[0];
  const url = t.s.storefronts.installUrl(org.reference, {
    shop,
    name: 'Case Lovers',
    accountId: org.accounts[0].reference,
    brandId: org.brands[0].reference,
  });
  const back = await t.app.inject({
    method: 'GET',
    url: `/integrations/shopify/callback?${new URLSearchParams(shopify.approve(url))}`,
  });
  return back.headers.location!.split('/')[3].split('?')[0];
}
