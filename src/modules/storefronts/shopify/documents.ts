/**
 * Every GraphQL document the service sends to the Admin API. The test stand-in validates each one
 * against Shopify's published schema for SHOPIFY_API_VERSION, so a field Shopify does not have fails
 * a test, not a merchant's store.
 */

const USER_ERRORS = 'userErrors { field message }';

export const FULFILLMENT_SERVICE_CREATE = `mutation FulfillmentServiceCreate($name: String!, $callbackUrl: URL!) {
  fulfillmentServiceCreate(name: $name, callbackUrl: $callbackUrl, trackingSupport: false, inventoryManagement: false) {
    fulfillmentService { id serviceName location { id } }
    ${USER_ERRORS}
  }
}`;

export const WEBHOOK_SUBSCRIPTION_CREATE = `mutation WebhookSubscriptionCreate($topic: WebhookSubscriptionTopic!, $uri: String!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: { uri: $uri, format: JSON }) {
    webhookSubscription { id topic }
    ${USER_ERRORS}
  }
}`;

const FULFILLMENT_ORDER_FIELDS = `id status requestStatus orderId orderName
  deliveryMethod { methodType presentedName serviceCode }
  destination { firstName lastName company address1 address2 city province zip countryCode email phone }
  lineItems(first: 250) { nodes { id sku totalQuantity remainingQuantity lineItem { id } } }
  merchantRequests(first: 1, kind: CANCELLATION_REQUEST) { nodes { message } }`;

/** Fulfillment orders assigned to the service's location in one request state (a page at a time). */
export const ASSIGNED_FULFILLMENT_ORDERS = `query AssignedFulfillmentOrders($status: FulfillmentOrderAssignmentStatus!, $after: String) {
  assignedFulfillmentOrders(first: 50, assignmentStatus: $status, after: $after) {
    nodes { ${FULFILLMENT_ORDER_FIELDS} }
    pageInfo { hasNextPage endCursor }
  }
}`;

export const ACCEPT_FULFILLMENT_REQUEST = `mutation AcceptFulfillmentRequest($id: ID!, $message: String) {
  fulfillmentOrderAcceptFulfillmentRequest(id: $id, message: $message) {
    fulfillmentOrder { id requestStatus }
    ${USER_ERRORS}
  }
}`;

export const REJECT_FULFILLMENT_REQUEST = `mutation RejectFulfillmentRequest($id: ID!, $reason: FulfillmentOrderRejectionReason, $message: String) {
  fulfillmentOrderRejectFulfillmentRequest(id: $id, reason: $reason, message: $message) {
    fulfillmentOrder { id requestStatus }
    ${USER_ERRORS}
  }
}`;

export const ACCEPT_CANCELLATION_REQUEST = `mutation AcceptCancellationRequest($id: ID!, $message: String) {
  fulfillmentOrderAcceptCancellationRequest(id: $id, message: $message) {
    fulfillmentOrder { id requestStatus }
    ${USER_ERRORS}
  }
}`;

export const REJECT_CANCELLATION_REQUEST = `mutation RejectCancellationRequest($id: ID!, $message: String) {
  fulfillmentOrderRejectCancellationRequest(id: $id, message: $message) {
    fulfillmentOrder { id requestStatus }
    ${USER_ERRORS}
  }
}`;

export const FULFILLMENT_CREATE = `mutation FulfillmentCreate($fulfillment: FulfillmentInput!) {
  fulfillmentCreate(fulfillment: $fulfillment) {
    fulfillment { id status trackingInfo(first: 1) { company number url } }
    ${USER_ERRORS}
  }
}`;

/** The carrier's number and page for a fulfillment made before the carrier labelled the parcel. */
export const FULFILLMENT_TRACKING_INFO_UPDATE = `mutation FulfillmentTrackingInfoUpdate($fulfillmentId: ID!, $trackingInfoInput: FulfillmentTrackingInput!, $notifyCustomer: Boolean) {
  fulfillmentTrackingInfoUpdate(fulfillmentId: $fulfillmentId, trackingInfoInput: $trackingInfoInput, notifyCustomer: $notifyCustomer) {
    fulfillment { id status trackingInfo(first: 1) { company number url } }
    ${USER_ERRORS}
  }
}`;

export const FULFILLMENT_EVENT_CREATE = `mutation FulfillmentEventCreate($event: FulfillmentEventInput!) {
  fulfillmentEventCreate(fulfillmentEvent: $event) {
    fulfillmentEvent { id status }
    ${USER_ERRORS}
  }
}`;

export const STAGED_UPLOADS_CREATE = `mutation StagedUploadsCreate($input: [StagedUploadInput!]!) {
  stagedUploadsCreate(input: $input) {
    stagedTargets { url resourceUrl parameters { name value } }
    ${USER_ERRORS}
  }
}`;

/** Creates or updates (by id) one product with its options, variants and media. */
export const PRODUCT_SET = `mutation ProductSet($input: ProductSetInput!, $identifier: ProductSetIdentifiers) {
  productSet(input: $input, identifier: $identifier, synchronous: true) {
    product { id handle status variants(first: 250) { nodes { id sku } } }
    userErrors { field message code }
  }
}`;

export const PRODUCT_STATUS_UPDATE = `mutation ProductStatusUpdate($product: ProductUpdateInput!) {
  productUpdate(product: $product) {
    product { id status }
    ${USER_ERRORS}
  }
}`;

export const ALL_DOCUMENTS = {
  FULFILLMENT_SERVICE_CREATE,
  WEBHOOK_SUBSCRIPTION_CREATE,
  ASSIGNED_FULFILLMENT_ORDERS,
  ACCEPT_FULFILLMENT_REQUEST,
  REJECT_FULFILLMENT_REQUEST,
  ACCEPT_CANCELLATION_REQUEST,
  REJECT_CANCELLATION_REQUEST,
  FULFILLMENT_CREATE,
  FULFILLMENT_EVENT_CREATE,
  STAGED_UPLOADS_CREATE,
  PRODUCT_SET,
  PRODUCT_STATUS_UPDATE,
};
