/**
 * `Intl.DateTimeFormat`s, made once per locale, time zone and shape: making one costs far more
 * than formatting with it (a checkout awaiting payment formats its email's deadline while buyers
 * queue behind it). A process meets few locales and zones, so the memory is small.
 */
const made = new Map<string, Intl.DateTimeFormat>()

export function dateTimeFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}\u0000${JSON.stringify(options)}`
  let format = made.get(key)
  if (!format) {
    format = new Intl.DateTimeFormat(locale, options)
    made.set(key, format)
  }
  return format
}
