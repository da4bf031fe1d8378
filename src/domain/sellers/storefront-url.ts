/** A storefront URL as stored: without trailing slashes, so `{url}/verify-email` has one. */
export const normalizeStorefrontUrl = (url: string) => url.replace(/\/+$/, '')
