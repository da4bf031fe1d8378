import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/platform/config.js'

describe('customer authentication limits', () => {
  it('default to 60 s windows: login 60 per IP and 10 per email, emails 30 per IP and 5 per address', () => {
    expect(loadConfig({}).stfRateLimits).toEqual({
      windowSeconds: 60,
      loginPerIp: 60,
      loginPerEmail: 10,
      emailPerIp: 30,
      emailPerEmail: 5,
      refreshPerIp: 120,
      tokenPerIp: 60,
      limitFactorWithoutEndUserIp: 20,
    })
  })

  it('are read from the environment', () => {
    const config = loadConfig({ STF_RATE_LIMIT_WINDOW_SECONDS: '5', STF_LOGIN_LIMIT_PER_EMAIL: '2', STF_TOKEN_LIMIT_PER_IP: '7' })
    expect(config.stfRateLimits).toMatchObject({ windowSeconds: 5, loginPerEmail: 2, tokenPerIp: 7, loginPerIp: 60 })
  })

  it('refuse zero, negative and non-numeric limits', () => {
    for (const value of ['0', '-1', 'many', '1.5']) {
      expect(() => loadConfig({ STF_LOGIN_LIMIT_PER_IP: value }), value).toThrowError(ConfigError)
    }
  })
})
