/**
 * ISGweb/iBridge: an XML document in the string, declared UTF-16 because the Java client re-encodes it so. In
 * upper case: a theme deployed at ISGweb associations replaces exactly `UTF-16` by `UTF-8` before it parses.
 */
const IBRIDGE_DECLARATION = '<?xml version="1.0" encoding="UTF-16"?>';

/** An iBridge result string: its one element (User, Success or Errors) in the iBridge root. */
export const ibridgeDocument = (element: string): string => `${IBRIDGE_DECLARATION}<iBridge>${element}</iBridge>`;
