import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { describe, expect, it, vi } from 'vitest'
import { requestLogger } from '../../src/platform/http/request-logging.js'
import { captureLogs } from '../support/log-capture.js'

/** A request's logger as Fastify asks for it: the parent, the trace id, no options. */
const forRequest = (parent: FastifyBaseLogger, options = {}) => requestLogger.call({} as FastifyInstance, parent, { trace_id: 't-1' }, options, {} as never)
const withoutTime = (lines: Record<string, unknown>[]) => lines.map(({ time: _, ...line }) => line)

describe("a request's logger", () => {
  it("writes the lines pino's child writes, bound to the trace id, at the parent's levels", () => {
    const lazy = captureLogs('info')
    const eager = captureLogs('info')
    for (const log of [forRequest(lazy.logger as FastifyBaseLogger), eager.logger.child({ trace_id: 't-1' })]) {
      log.debug('not written')
      log.info({ route: '/x' }, 'incoming request')
      log.warn('%s of %d', 'one', 2)
      log.error(new Error('broken'))
      log.child({ part: 'inner' }).info('from a child')
    }
    expect(withoutTime(lazy.lines)).toEqual(withoutTime(eager.lines))
    expect(lazy.lines.map((line) => line.trace_id)).toEqual(['t-1', 't-1', 't-1', 't-1'])
  })

  it('makes no child while nothing is written at an enabled level', () => {
    const { logger, lines } = captureLogs('warn')
    const child = vi.spyOn(logger, 'child')
    const log = forRequest(logger as FastifyBaseLogger)
    log.info({ route: '/x' }, 'incoming request')
    log.debug('nothing')
    expect(child).not.toHaveBeenCalled()
    expect(log.level).toBe('warn')
    log.warn('written')
    expect(child).toHaveBeenCalledTimes(1)
    log.error('written too')
    expect(child).toHaveBeenCalledTimes(1)
    expect(lines.map((line) => [line.msg, line.trace_id])).toEqual([
      ['written', 't-1'],
      ['written too', 't-1'],
    ])
  })

  it("is pino's child at once for a route with its own level", () => {
    const { logger } = captureLogs('info')
    const child = vi.spyOn(logger, 'child')
    forRequest(logger as FastifyBaseLogger, { level: 'debug' })
    expect(child).toHaveBeenCalledWith({ trace_id: 't-1' }, { level: 'debug' })
  })
})
