import { z } from 'zod'
import { COMMON_PASSWORD_MESSAGE, isCommonPassword } from './auth/passwords.js'

/**
 * Every setting the process reads, parsed once at boot (docs/operations.md, Configuration).
 * An empty variable counts as unset, so `SMTP_URL=` in a compose file means "no SMTP".
 */
const urlWithScheme = (schemes: string[]) =>
  z.url().refine((value) => schemes.some((s) => value.startsWith(`${s}://`)), {
    message: `must be a ${schemes.join(' or ')} URL`,
  })

const seconds = (fallback: number) => z.coerce.number().int().min(1).max(31_536_000).default(fallback)
const count = (fallback: number) => z.coerce.number().int().min(1).max(1_000_000).default(fallback)
const commaList = z.string().transform((value) =>
  value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean),
)

const booleanFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback ? 'true' : 'false')
    .transform((value) => value === 'true' || value === '1' || value === 'yes')

export const ZEnv = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    DATABASE_URL: urlWithScheme(['postgres', 'postgresql']).optional(),
    DATA_DIR: z.string().min(1).default('./data'),
    DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
    DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
    DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
    /** Named prepared statements on PostgreSQL; false behind a transaction-mode pooler such as PgBouncer < 1.21. */
    DB_PREPARED_STATEMENTS: booleanFlag(true),
    SMTP_URL: urlWithScheme(['smtp', 'smtps']).optional(),
    MAIL_FROM: z.string().min(3).default('no-reply@localhost'),
    JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    /** Seals the tickets' signing keys in the database; unset: a file in DATA_DIR (embedded), else JWT_SECRET (secrets.ts). */
    TICKET_KEYS_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    ADMIN_EMAIL: z.email().optional(),
    ADMIN_PASSWORD: z
      .string()
      .min(8)
      .max(128)
      .refine((p) => !isCommonPassword(p), COMMON_PASSWORD_MESSAGE)
      .optional(),
    IAM_RESET_URL: urlWithScheme(['http', 'https']).default('http://localhost:3000/reset'),
    /**
     * Where clients reach this API (scheme, host, port, and a path prefix behind a proxy): the
     * OpenAPI document's `servers`, the devices' `pairing_url` and pairing QR. Unset: the address
     * the server listens on (`http://<HOST>:<PORT>`, 127.0.0.1 for a wildcard HOST), which a phone
     * cannot reach when it is a loopback address (the server then warns, src/checkin/loopback-pairing.ts).
     */
    PUBLIC_BASE_URL: urlWithScheme(['http', 'https'])
      .refine((value) => !/[?#]/.test(value), 'must not have a query or fragment')
      .optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    REDIS_URL: urlWithScheme(['redis', 'rediss']).optional(),
    /** Prefix of every key written to Redis: several deployments (or test runs) may share one server. */
    REDIS_KEY_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9:_.-]{1,64}$/, 'must be 1 to 64 letters, digits or :_.-')
      .default('boxoffice:'),
    CORS_ORIGINS: commaList.pipe(z.array(z.url({ message: 'must list full origins such as https://admin.example.com' }))).optional(),
    TRUST_PROXY: commaList.optional(),
    SEED_DEMO: booleanFlag(true),
    OUTBOX_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
    OUTBOX_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    /** Webhook endpoints may be plain http:// URLs (development, tests). */
    WEBHOOK_ALLOW_INSECURE: booleanFlag(false),
    /** Webhook endpoints may resolve to loopback, private, link-local or metadata addresses (development, tests). */
    WEBHOOK_ALLOW_PRIVATE: booleanFlag(false),
    /** How long a webhook receiver has to answer, headers and body. */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(10_000),
    /** First retry delay of a failed webhook delivery; each further one doubles it (with jitter), up to 6 hours. */
    WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).max(3_600_000).default(60_000),
    AVAILABILITY_MEMO_MS: z.coerce.number().int().min(0).max(60_000).default(2000),
    HOLDS_PER_INVENTORY: z.coerce.number().int().min(1).max(1000).default(4),
    HOLDS_IN_FLIGHT: z.coerce.number().int().min(1).max(1000).default(8),
    /** How long one group's statement may go on taking further members; unset: a tenth of DB_STATEMENT_TIMEOUT_MS. */
    HOLDS_GROUP_BUDGET_MS: z.coerce.number().int().min(0).max(300_000).optional(),
    WAITING_LIST_SWEEP_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
    /** A running export whose heartbeat is older than this is failed by the sweep (its process died, docs/exports.md). */
    EXPORT_STALE_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
    /** How long a storefront catalogue answer is served from memory at most (0: never). */
    CATALOGUE_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
    ADMISSION_SATURATION: z.coerce.number().min(0).max(1.01).default(0.9),
    ADMISSION_MAX_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
    STF_ACCESS_TOKEN_TTL_SECONDS: seconds(15 * 60),
    STF_REFRESH_TOKEN_TTL_SECONDS: seconds(30 * 24 * 3600),
    STF_RESET_TOKEN_TTL_SECONDS: seconds(30 * 60),
    STF_MAGIC_LINK_TTL_SECONDS: seconds(10 * 60),
    STF_VERIFY_EMAIL_TTL_SECONDS: seconds(48 * 3600),
    IAM_ACCESS_TOKEN_TTL_SECONDS: seconds(15 * 60),
    IAM_REFRESH_TOKEN_TTL_SECONDS: seconds(30 * 24 * 3600),
    IAM_RESET_TOKEN_TTL_SECONDS: seconds(30 * 60),
    IAM_RATE_LIMIT_WINDOW_SECONDS: seconds(60),
    IAM_ACCOUNT_RATE_LIMIT_WINDOW_SECONDS: seconds(15 * 60),
    IAM_LOGIN_LIMIT_PER_IP: count(30),
    IAM_LOGIN_FAILURES_PER_ACCOUNT: count(10),
    IAM_REFRESH_LIMIT_PER_IP: count(60),
    IAM_PASSWORD_LIMIT_PER_IP: count(10),
    IAM_RECOVER_LIMIT_PER_ACCOUNT: count(5),
    STF_RATE_LIMIT_WINDOW_SECONDS: seconds(60),
    STF_LOGIN_LIMIT_PER_IP: count(60),
    STF_LOGIN_LIMIT_PER_EMAIL: count(10),
    STF_EMAIL_LIMIT_PER_IP: count(30),
    STF_EMAIL_LIMIT_PER_EMAIL: count(5),
    STF_REFRESH_LIMIT_PER_IP: count(120),
    STF_TOKEN_LIMIT_PER_IP: count(60),
    /** Without X-End-User-IP the per-IP customer limits count per connection, this many times higher. */
    STF_LIMIT_FACTOR_WITHOUT_END_USER_IP: z.coerce.number().int().min(1).max(1000).default(20),
    /** Pairing attempts of scanner devices per client address per minute (POST /chk/v1/pair). */
    CHK_PAIR_LIMIT_PER_IP: count(10),
    /** Serves GET /metrics on the API port to `Authorization: Bearer <METRICS_TOKEN>`. */
    METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    /** Serves GET /metrics on this port of 127.0.0.1, without authentication. */
    METRICS_PORT: z.coerce.number().int().min(1).max(65_535).optional(),
  })
  .superRefine((env, ctx) => {
    // A group costs its budget and one take at most: far under the statement timeout, never near it.
    if (env.HOLDS_GROUP_BUDGET_MS !== undefined && env.HOLDS_GROUP_BUDGET_MS * 2 > env.DB_STATEMENT_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['HOLDS_GROUP_BUDGET_MS'], message: 'must be at most half of DB_STATEMENT_TIMEOUT_MS' })
    }
    if (env.DATABASE_URL && !env.JWT_SECRET) {
      ctx.addIssue({ code: 'custom', path: ['JWT_SECRET'], message: 'is required when DATABASE_URL is set' })
    }
    if (Boolean(env.ADMIN_EMAIL) !== Boolean(env.ADMIN_PASSWORD)) {
      ctx.addIssue({
        code: 'custom',
        path: [env.ADMIN_EMAIL ? 'ADMIN_PASSWORD' : 'ADMIN_EMAIL'],
        message: 'ADMIN_EMAIL and ADMIN_PASSWORD are set together',
      })
    }
  })

export type Env = z.input<typeof ZEnv>

/** The configuration as the code reads it: derived from the parsed environment, frozen. */
export type Config = ReturnType<typeof toConfig>

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Each variable's place in the configuration: the one mapping from variables to fields. */
function toConfig(e: z.output<typeof ZEnv>) {
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    /** Unset: the embedded PGlite database in `dataDir`. */
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    db: Object.freeze({
      poolMax: e.DB_POOL_MAX,
      connectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
      preparedStatements: e.DB_PREPARED_STATEMENTS,
    }),
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    /** Unset with the embedded database: generated and kept in `dataDir`. */
    jwtSecret: e.JWT_SECRET,
    ticketKeysSecret: e.TICKET_KEYS_SECRET,
    admin: e.ADMIN_EMAIL && e.ADMIN_PASSWORD ? Object.freeze({ email: e.ADMIN_EMAIL, password: e.ADMIN_PASSWORD }) : undefined,
    iamResetUrl: e.IAM_RESET_URL,
    /**
     * Without a trailing slash: paths in the OpenAPI document start with one. Unset: the address the
     * server listens on, its port once it listens (`app.publicBaseUrl`, platform/http/public-base-url.ts).
     */
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    logLevel: e.LOG_LEVEL,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    corsOrigins: Object.freeze(e.CORS_ORIGINS ?? []),
    trustProxy: e.TRUST_PROXY ? Object.freeze(e.TRUST_PROXY) : undefined,
    seedDemo: e.SEED_DEMO,
    outboxPollMs: e.OUTBOX_POLL_MS,
    outboxRetentionDays: e.OUTBOX_RETENTION_DAYS,
    webhooks: Object.freeze({
      allowInsecure: e.WEBHOOK_ALLOW_INSECURE,
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
    }),
    /** How long a sold-out reading may refuse new baskets without a round trip, at most (0: never). */
    availabilityMemoMs: e.AVAILABILITY_MEMO_MS,
    holdsPerInventory: e.HOLDS_PER_INVENTORY,
    holdsInFlight: e.HOLDS_IN_FLIGHT,
    /** How long one group's statement goes on taking further members (take_tickets_group.sql), in ms. */
    holdsGroupBudgetMs: e.HOLDS_GROUP_BUDGET_MS ?? Math.floor(e.DB_STATEMENT_TIMEOUT_MS / 10),
    /** How often each process looks for waiting lists to serve that no change announced (a hold run out, an offer past its time). */
    waitingListSweepMs: e.WAITING_LIST_SWEEP_MS,
    /** After how many seconds without a heartbeat a running export counts as dead (docs/exports.md). */
    exportStaleSeconds: e.EXPORT_STALE_SECONDS,
    catalogueCacheMs: e.CATALOGUE_CACHE_MS,
    admission: { saturation: e.ADMISSION_SATURATION, maxWaitMs: e.ADMISSION_MAX_WAIT_MS },
    ttl: Object.freeze({
      stfAccess: e.STF_ACCESS_TOKEN_TTL_SECONDS,
      stfRefresh: e.STF_REFRESH_TOKEN_TTL_SECONDS,
      stfReset: e.STF_RESET_TOKEN_TTL_SECONDS,
      stfMagicLink: e.STF_MAGIC_LINK_TTL_SECONDS,
      stfVerifyEmail: e.STF_VERIFY_EMAIL_TTL_SECONDS,
      iamAccess: e.IAM_ACCESS_TOKEN_TTL_SECONDS,
      iamRefresh: e.IAM_REFRESH_TOKEN_TTL_SECONDS,
      iamReset: e.IAM_RESET_TOKEN_TTL_SECONDS,
    }),
    /**
     * Staff authentication limits. Per IP over `ipWindowSeconds`; per account (the email named in
     * the body) over `accountWindowSeconds`: login attempts (forgiven when right) and recovery emails.
     */
    iamRateLimits: Object.freeze({
      ipWindowSeconds: e.IAM_RATE_LIMIT_WINDOW_SECONDS,
      accountWindowSeconds: e.IAM_ACCOUNT_RATE_LIMIT_WINDOW_SECONDS,
      loginPerIp: e.IAM_LOGIN_LIMIT_PER_IP,
      loginFailuresPerAccount: e.IAM_LOGIN_FAILURES_PER_ACCOUNT,
      refreshPerIp: e.IAM_REFRESH_LIMIT_PER_IP,
      passwordPerIp: e.IAM_PASSWORD_LIMIT_PER_IP,
      recoverPerAccount: e.IAM_RECOVER_LIMIT_PER_ACCOUNT,
    }),
    /**
     * Customer authentication limits, each counted per seller over `windowSeconds`: per client
     * address (X-End-User-IP, else the connection's at `limitFactorWithoutEndUserIp` times the
     * limit), and per email (as named in the body). `email*` covers the calls that send an email;
     * `token*` those that consume an emailed token.
     */
    stfRateLimits: Object.freeze({
      windowSeconds: e.STF_RATE_LIMIT_WINDOW_SECONDS,
      loginPerIp: e.STF_LOGIN_LIMIT_PER_IP,
      loginPerEmail: e.STF_LOGIN_LIMIT_PER_EMAIL,
      emailPerIp: e.STF_EMAIL_LIMIT_PER_IP,
      emailPerEmail: e.STF_EMAIL_LIMIT_PER_EMAIL,
      refreshPerIp: e.STF_REFRESH_LIMIT_PER_IP,
      tokenPerIp: e.STF_TOKEN_LIMIT_PER_IP,
      limitFactorWithoutEndUserIp: e.STF_LIMIT_FACTOR_WITHOUT_END_USER_IP,
    }),
    /** Pairing attempts per client address per minute: codes cannot be guessed, and this keeps it so. */
    chkPairPerIp: e.CHK_PAIR_LIMIT_PER_IP,
    /** Where GET /metrics is served; neither set: nowhere. */
    metrics: Object.freeze({ token: e.METRICS_TOKEN, port: e.METRICS_PORT }),
  })
}

/** Parses the environment or throws one ConfigError whose message names each bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([key, value]) => key in ZEnv.shape && value !== undefined && value.trim() !== ''))
  const parsed = ZEnv.safeParse(present)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? 'environment')
      const got = name in present ? ` (got ${JSON.stringify(redact(name, present[name]))})` : ''
      return `${name} ${issue.message}${got}`
    })
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`)
  }
  return toConfig(parsed.data)
}

/** A server's first step: the configuration of this process, or exit 1 with what is wrong on stderr. */
export function loadConfigOrExit(env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`${error.message}\n`)
    process.exit(1)
  }
}

/** The names of every variable the process reads; the compose test checks against it. */
export const KNOWN_ENV = Object.freeze(Object.keys(ZEnv.shape))

const SECRET = /SECRET|PASSWORD|TOKEN$/
function redact(name: string, value: string | undefined) {
  if (value === undefined) return value
  if (SECRET.test(name)) return '***'
  // Credentials inside URLs stay out of logs too.
  return value.replace(/\/\/[^@/]*@/, '//***@')
}
