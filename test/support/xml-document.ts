import { SaxesParser } from 'saxes'

/** An element of a parsed document: its name, attributes, text (its own, concatenated) and children. */
export type XmlElement = { name: string; attributes: Record<string, string>; text: string; children: XmlElement[] }

/**
 * A document read by a conforming XML 1.0 parser (saxes: every well-formedness error, a character
 * XML forbids included, is reported), as a browser's `<img>` would read an SVG: the errors it
 * found (none: well-formed) and its root element.
 */
export function parseXml(xml: string): { errors: string[]; root: XmlElement | undefined } {
  const parser = new SaxesParser({ xmlns: true })
  const errors: string[] = []
  const stack: XmlElement[] = []
  let root: XmlElement | undefined
  parser.on('error', (error) => errors.push(error.message))
  parser.on('opentag', (tag) => {
    const element: XmlElement = {
      name: tag.name,
      attributes: Object.fromEntries(Object.entries(tag.attributes).map(([name, attribute]) => [name, attribute.value])),
      text: '',
      children: [],
    }
    stack.at(-1)?.children.push(element)
    root ??= element
    stack.push(element)
  })
  parser.on('text', (text) => {
    const current = stack.at(-1)
    if (current) current.text += text
  })
  parser.on('closetag', () => stack.pop())
  parser.write(xml).close()
  return { errors, root }
}

/** Every element of the tree in document order. */
export function* elementsOf(element: XmlElement): Generator<XmlElement> {
  yield element
  for (const child of element.children) yield* elementsOf(child)
}
