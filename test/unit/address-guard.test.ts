import { describe, expect, it } from 'vitest'
import { isForbiddenAddress } from '../../src/platform/net/address-guard.js'

describe('addresses a user-given URL must not reach', () => {
  it('refuses loopback, private, link-local, CGNAT, metadata, unspecified and their IPv4-mapped forms', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '100.100.100.200',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fc00::1',
      'fd00:ec2::254',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::10.0.0.1',
      'not an address',
    ]) {
      expect(isForbiddenAddress(address), address).toBe(true)
    }
  })

  it('lets public addresses through', () => {
    for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect(isForbiddenAddress(address), address).toBe(false)
    }
  })
})
