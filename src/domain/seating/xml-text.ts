/**
 * Characters no XML 1.0 document may carry (its `Char` production): the C0 controls but tab, line
 * feed and carriage return; the noncharacters U+FFFE and U+FFFF; and a UTF-16 surrogate without its
 * pair (no character at all). One of them anywhere in `seats.svg` and no browser draws the map.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are what it finds
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** What a refused plan text is told (docs/seating.md). */
export const XML_FORBIDDEN_MESSAGE = 'must not contain characters XML 1.0 forbids (control characters but tab and line breaks, U+FFFE, U+FFFF)'

/** Whether an XML document can carry the text as it is. */
export const isXmlText = (text: string) => !FORBIDDEN.test(text)

// One pass over the text: what markup would read, and what XML cannot carry at all.
const UNSAFE = new RegExp(`[&<>"']|${FORBIDDEN.source}`, 'g')
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }

/**
 * Text or an attribute value written into an XML document: markup escaped, and each character XML
 * cannot carry (plans stored before they were refused, docs/seating.md) replaced, a control character by
 * a space (a vertical tab is Word's line break), anything else by U+FFFD as a decoder would. Always
 * well-formed, whatever the text.
 */
export const escapeXml = (text: string) => text.replace(UNSAFE, (c) => ESCAPES[c] ?? (c.charCodeAt(0) < 0x20 ? ' ' : '\uFFFD'))
