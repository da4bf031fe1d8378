import { hashOpaqueToken, newOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { pairDeviceRow } from './devices.repo.js'
import { hashPairingCode } from './pairing-code.js'
import { toDeviceView, type DeviceView } from './views.js'

export type PairDeviceOptions = {
  pairingCode: string
  hardware?: string | undefined
  software?: string | undefined
  tokenHmac: Buffer
  traceId?: string
}

/**
 * Exchanges a pairing code for the device's token, answered this once and stored as a keyed
 * hash. The code works once: two calls with it at the same moment give one token. An unknown,
 * used, expired or revoked code: 401 `invalid_token`, one answer for all.
 */
export const pairDevice = (db: Db, options: PairDeviceOptions) =>
  db.transaction(async (tx): Promise<{ device: DeviceView; token: string }> => {
    const token = newOpaqueToken(32, 'dev_')
    const device = await pairDeviceRow(tx, hashPairingCode(options.tokenHmac, options.pairingCode), {
      tokenHash: hashOpaqueToken(options.tokenHmac, token),
      hardware: options.hardware ?? null,
      software: options.software ?? null,
    })
    if (!device) throw new AppError('invalid_token', { message: 'The pairing code is unknown, used or expired' })
    await recordAudit(
      tx,
      { type: 'system', traceId: options.traceId ?? null },
      {
        action: 'chk.device.paired',
        target: { type: 'device', id: device.id },
        sellerId: device.sellerId,
        data: { hardware: device.hardware, software: device.software },
      },
    )
    return { device: toDeviceView(device), token }
  })
