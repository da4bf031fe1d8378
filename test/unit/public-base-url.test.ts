import { describe, expect, it } from 'vitest'
import { isLoopbackUrl, listenUrl } from '../../src/platform/http/public-base-url.js'

/** docs/operations.md: the address the server listens on, and whether another device can reach it. */
describe('listenUrl', () => {
  it('names the host and port it listens on, 127.0.0.1 for a wildcard, IPv6 in brackets', () => {
    expect(listenUrl('127.0.0.1', 4853)).toBe('http://127.0.0.1:4853')
    expect(listenUrl('localhost', 3000)).toBe('http://localhost:3000')
    expect(listenUrl('192.168.1.20', 3000)).toBe('http://192.168.1.20:3000')
    expect(listenUrl('0.0.0.0', 4853)).toBe('http://127.0.0.1:4853')
    expect(listenUrl('::', 4853)).toBe('http://127.0.0.1:4853')
    expect(listenUrl('::1', 4853)).toBe('http://[::1]:4853')
    expect(listenUrl('fd00::20', 80)).toBe('http://[fd00::20]:80')
  })
})

describe('isLoopbackUrl', () => {
  it('is true for 127.0.0.0/8, ::1 (mapped too) and localhost', () => {
    for (const url of [
      'http://127.0.0.1:3000',
      'http://127.9.9.9',
      'http://[::1]:3000',
      'http://[::ffff:127.0.0.1]:3000',
      'http://localhost:3000',
      'https://app.localhost/api',
    ]) {
      expect(isLoopbackUrl(url), url).toBe(true)
    }
  })

  it('is false for an address or name other devices can reach', () => {
    for (const url of [
      'http://192.168.1.20:3000',
      'http://10.0.0.5',
      'http://[fd00::20]:3000',
      'https://tickets.example.com/api',
      'http://localhost.example.com',
      'http://0.0.0.0:3000',
    ]) {
      expect(isLoopbackUrl(url), url).toBe(false)
    }
  })
})
