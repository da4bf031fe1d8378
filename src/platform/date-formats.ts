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

const regionNames = new Map<string, Intl.DisplayNames>()

/** The names of countries and regions in a language (`BR`: "Brasil", "Brazil"), made once per language; an unknown code reads as itself. */
export function regionDisplayNames(locale: string): Intl.DisplayNames {
  let names = regionNames.get(locale)
  if (!names) {
    names = new Intl.DisplayNames([locale], { type: 'region', fallback: 'code' })
    regionNames.set(locale, names)
  }
  return names
}
