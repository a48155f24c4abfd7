/** The SDK's version, sent in the User-Agent; test/sdk/package.test.ts keeps it equal to package.json's. */
export const VERSION = '2.1.0';
