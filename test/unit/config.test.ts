import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/platform/config.js'

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      dataDir: './data',
      smtpUrl: undefined,
      mailFrom: 'no-reply@localhost',
      iamResetUrl: 'http://localhost:3000/reset',
      // Unset: the address the server listens on (app.publicBaseUrl, test/http/public-base-url.test.ts).
      publicBaseUrl: undefined,
      logLevel: 'info',
      corsOrigins: [],
      trustProxy: undefined,
      seedDemo: true,
    })
    expect(config.ttl).toEqual({
      stfAccess: 900,
      stfRefresh: 2_592_000,
      stfReset: 1800,
      stfMagicLink: 600,
      stfVerifyEmail: 172_800,
      iamAccess: 900,
      iamRefresh: 2_592_000,
      iamReset: 1800,
    })
    expect(config.iamRateLimits).toEqual({
      ipWindowSeconds: 60,
      accountWindowSeconds: 900,
      loginPerIp: 30,
      loginFailuresPerAccount: 10,
      refreshPerIp: 60,
      passwordPerIp: 10,
      recoverPerAccount: 5,
    })
    expect(Object.isFrozen(config)).toBe(true)
  })

  it('bounds a group of holds to a tenth of the statement timeout unless set, and to half of it at most', () => {
    expect(loadConfig({}).holdsGroupBudgetMs).toBe(500)
    expect(loadConfig({ DB_STATEMENT_TIMEOUT_MS: '20000' }).holdsGroupBudgetMs).toBe(2000)
    expect(loadConfig({ HOLDS_GROUP_BUDGET_MS: '0' }).holdsGroupBudgetMs).toBe(0)
    expect(() => loadConfig({ HOLDS_GROUP_BUDGET_MS: '3000' })).toThrowError(/HOLDS_GROUP_BUDGET_MS must be at most half of DB_STATEMENT_TIMEOUT_MS/)
  })

  it('reads the staff rate limits and refuses a limit below 1', () => {
    const config = loadConfig({ IAM_LOGIN_LIMIT_PER_IP: '5', IAM_ACCOUNT_RATE_LIMIT_WINDOW_SECONDS: '3600' })
    expect(config.iamRateLimits).toMatchObject({ loginPerIp: 5, accountWindowSeconds: 3600 })
    expect(() => loadConfig({ IAM_LOGIN_FAILURES_PER_ACCOUNT: '0' })).toThrowError(/IAM_LOGIN_FAILURES_PER_ACCOUNT/)
  })

  it('names the variable and the value in one line when a value is bad', () => {
    expect(() => loadConfig({ PORT: 'abc' })).toThrowError(ConfigError)
    try {
      loadConfig({ PORT: 'abc' })
    } catch (error) {
      expect((error as Error).message).toMatch(/^Invalid configuration: PORT .*"abc"/)
      expect((error as Error).message).not.toContain('\n')
    }
  })

  it('requires JWT_SECRET with DATABASE_URL', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://localhost/x' })).toThrowError(/JWT_SECRET is required/)
    expect(loadConfig({ DATABASE_URL: 'postgres://localhost/x', JWT_SECRET: 'x'.repeat(32) }).databaseUrl).toBe('postgres://localhost/x')
  })

  it('refuses a short JWT_SECRET without echoing it', () => {
    expect(() => loadConfig({ JWT_SECRET: 'short-secret' })).toThrowError(/JWT_SECRET .*"\*\*\*"/)
    expect(() => loadConfig({ JWT_SECRET: 'short-secret' })).not.toThrowError(/short-secret/)
  })

  it('refuses URLs of the wrong scheme and hides their credentials', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://u:pw@localhost/x', JWT_SECRET: 'x'.repeat(32) })).toThrowError(
      /DATABASE_URL must be a postgres or postgresql URL \(got "mysql:\/\/\*\*\*@localhost\/x"\)/,
    )
    expect(() => loadConfig({ SMTP_URL: 'http://mail' })).toThrowError(/SMTP_URL/)
    expect(() => loadConfig({ REDIS_URL: 'localhost:6379' })).toThrowError(/REDIS_URL/)
  })

  it('takes PUBLIC_BASE_URL without its trailing slash, and refuses one that is not an http(s) URL', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://tickets.example.com/api/' }).publicBaseUrl).toBe('https://tickets.example.com/api')
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'ftp://tickets.example.com' })).toThrowError(/PUBLIC_BASE_URL/)
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'https://tickets.example.com/?x=1' })).toThrowError(/PUBLIC_BASE_URL must not have a query/)
  })

  it('treats empty variables as unset', () => {
    expect(loadConfig({ SMTP_URL: '', DATABASE_URL: '  ', PORT: '' })).toMatchObject({ smtpUrl: undefined, databaseUrl: undefined, port: 3000 })
  })

  it('parses lists, flags and the admin pair', () => {
    const config = loadConfig({
      CORS_ORIGINS: 'https://a.example, https://b.example',
      TRUST_PROXY: '10.0.0.0/8,127.0.0.1',
      SEED_DEMO: 'false',
      ADMIN_EMAIL: 'admin@example.com',
      ADMIN_PASSWORD: 'a-long-password',
    })
    expect(config.corsOrigins).toEqual(['https://a.example', 'https://b.example'])
    expect(config.trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1'])
    expect(config.seedDemo).toBe(false)
    expect(config.admin).toEqual({ email: 'admin@example.com', password: 'a-long-password' })
    expect(() => loadConfig({ ADMIN_EMAIL: 'admin@example.com' })).toThrowError(/ADMIN_PASSWORD/)
    expect(() => loadConfig({ CORS_ORIGINS: 'not an origin' })).toThrowError(/CORS_ORIGINS/)
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrowError(/LOG_LEVEL/)
  })
})
