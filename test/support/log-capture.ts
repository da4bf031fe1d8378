import { Writable } from 'node:stream'
import { pino, type Logger } from 'pino'

/** A pino logger whose lines are kept in memory, parsed, for assertions on logs. */
export function captureLogs(level = 'info'): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  return { logger: pino({ level }, stream), lines }
}
