import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/platform/config.js'
import { resolveSecrets } from '../../src/platform/secrets.js'

const JWT = 'a-jwt-secret-that-is-at-least-32-characters'
const dataDir = () => mkdtempSync(path.join(tmpdir(), 'boxoffice-secrets-'))

describe("the tickets' key-encryption key", () => {
  it('is TICKET_KEYS_SECRET when set, whatever JWT_SECRET is', async () => {
    const one = await resolveSecrets(loadConfig({ JWT_SECRET: JWT, TICKET_KEYS_SECRET: 'k'.repeat(32), DATA_DIR: dataDir() }))
    const two = await resolveSecrets(loadConfig({ JWT_SECRET: `${JWT}-changed`, TICKET_KEYS_SECRET: 'k'.repeat(32), DATA_DIR: dataDir() }))
    expect(one.ticketKeys).toEqual(two.ticketKeys)
    expect(one.ticketKeysSource).toBe('TICKET_KEYS_SECRET')
    expect(one.ticketCodes).not.toEqual(two.ticketCodes)
  })

  it('is generated once into DATA_DIR with the embedded database, and kept', async () => {
    const dir = dataDir()
    const first = await resolveSecrets(loadConfig({ JWT_SECRET: JWT, DATA_DIR: dir }))
    expect(first.ticketKeysSource).toBe('data-dir')
    expect(readFileSync(path.join(dir, 'ticket-keys-secret'), 'utf8').trim().length).toBeGreaterThanOrEqual(32)
    const again = await resolveSecrets(loadConfig({ JWT_SECRET: `${JWT}-changed`, DATA_DIR: dir }))
    expect(again.ticketKeys).toEqual(first.ticketKeys)
  })

  it('with DATABASE_URL and unset, is that of TICKET_KEYS_SECRET = JWT_SECRET (the value to set before changing JWT_SECRET)', async () => {
    const dir = dataDir()
    const fallback = await resolveSecrets(loadConfig({ JWT_SECRET: JWT, DATABASE_URL: 'postgres://localhost/x', DATA_DIR: dir }))
    expect(fallback.ticketKeysSource).toBe('JWT_SECRET')
    expect(existsSync(path.join(dir, 'ticket-keys-secret'))).toBe(false)
    const pinned = await resolveSecrets(loadConfig({ JWT_SECRET: `${JWT}-changed`, TICKET_KEYS_SECRET: JWT, DATABASE_URL: 'postgres://localhost/x' }))
    expect(pinned.ticketKeys).toEqual(fallback.ticketKeys)
  })
})
