import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import { levels, type Bindings, type ChildLoggerOptions, type Logger } from 'pino'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A health or readiness probe: its request lines are logged at debug, not info. */
    probe?: boolean
  }
}

const isProbe = (request: FastifyRequest) => request.routeOptions.config?.probe === true

/**
 * Whether the request's logger writes neither info nor debug lines (a level of warn or above):
 * then none of the request lines is written, and nothing about them is worked out.
 */
const abovePerRequestLines = (request: FastifyRequest) => {
  const level = request.log.level
  return level === 'silent' || (levels.values[level] ?? 0) > levels.values.info!
}

/**
 * Fastify's request logging (`incoming request`, `request completed` at info, with the trace id
 * as `trace_id`), except for probes: an orchestrator asks for health every few seconds, and those
 * lines would bury everything else. A probe's lines go to debug while it answers 2xx; a failing
 * probe is logged like any other request.
 */
export class RequestLogController extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'trace_id' })
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>) {
    if (abovePerRequestLines(request)) return
    if (!isProbe(request)) return super.incomingRequest(request, reply, metadata)
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request')
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>) {
    // An error is logged at error, whatever the level.
    if (!error && abovePerRequestLines(request)) return
    if (!isProbe(request) || error || reply.statusCode >= 300) return super.requestCompleted(error, request, reply, metadata)
    if (!this.isLogDisabled(request)) reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed')
  }
}

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
type Method = (...args: unknown[]) => void

/**
 * A request's logger, bound to its trace id like pino's child, which it makes only when a line is
 * written at a level the parent writes: a request that logs nothing (every request below info)
 * costs no child (pino serializes a child's bindings when it is made).
 */
class RequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
  ) {}

  /** The child, made on first use: it takes the parent's level at that moment, as an eager child would have. */
  private made(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings)
    return this.#child
  }

  private write(level: LevelName, args: unknown[]) {
    let child = this.#child
    if (child === undefined) {
      // A logger that cannot say which levels it writes gets its child at once.
      const enabled = (this.parent as Partial<Pick<Logger, 'isLevelEnabled'>>).isLevelEnabled
      if (enabled !== undefined && !enabled.call(this.parent, level)) return
      child = this.made()
    }
    ;(child[level] as Method).apply(child, args)
  }

  get level() {
    return (this.#child ?? this.parent).level
  }

  set level(level) {
    this.made().level = level
  }

  fatal(...args: unknown[]) {
    this.write('fatal', args)
  }
  error(...args: unknown[]) {
    this.write('error', args)
  }
  warn(...args: unknown[]) {
    this.write('warn', args)
  }
  info(...args: unknown[]) {
    this.write('info', args)
  }
  debug(...args: unknown[]) {
    this.write('debug', args)
  }
  trace(...args: unknown[]) {
    this.write('trace', args)
  }
  silent() {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made().child(bindings, options)
  }
}

/**
 * Fastify's `childLoggerFactory`: each request's logger, made lazily (`RequestLogger`). A route
 * with its own log level or serializers gets pino's child at once, as Fastify's default would.
 */
export const requestLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) => {
  if (options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options)
  return new RequestLogger(logger, bindings)
}
