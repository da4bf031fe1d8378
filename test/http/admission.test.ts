import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { admissionPlugin, type AdmissionOptions } from '../../src/platform/http/admission.js'
import { basketRoutes } from '../../src/storefront/baskets.routes.js'
import { catalogRoutes } from '../../src/storefront/catalog.routes.js'
import { orderRoutes } from '../../src/storefront/orders.routes.js'
import { admissionClasses } from '../support/admission-classes.js'

// Priority admission (issue 21): while the process is saturated, a checkout in progress is served
// before new baskets, which wait (never longer than the limit) instead of taking the event loop.

/** Resolves when `condition` holds, checking on every turn of the event loop (bounded). */
async function until(condition: () => boolean, what: string) {
  for (let turn = 0; turn < 200_000; turn++) {
    if (condition()) return
    await new Promise((resolve) => setImmediate(resolve))
  }
  throw new Error(`never happened: ${what}`)
}

let app: FastifyInstance | undefined
afterEach(async () => {
  await app?.close()
  app = undefined
})

/** An app with a `first` route that answers when told to and a `later` route that answers at once. */
async function appWith(options: AdmissionOptions) {
  app = Fastify()
  await app.register(admissionPlugin, options)
  // Each first request in progress, until told to answer (the oldest first).
  const inProgress: (() => void)[] = []
  let started = 0
  const firstStarted = new Promise<void>((onStarted) => {
    app!.get('/first', { config: { admission: 'first' } }, async () => {
      started++
      onStarted()
      await new Promise<void>((resolve) => inProgress.push(resolve))
      return { route: 'first' }
    })
  })
  app.get('/later', { config: { admission: 'later' } }, async () => ({ route: 'later' }))
  app.get('/other', async () => ({ route: 'other' }))
  await app.ready()
  return { app, admission: app.admission, firstStarted, started: () => started, finishFirst: () => inProgress.shift()!() }
}

describe('priority admission', () => {
  it('holds a later request while a first one is in progress and the process is saturated, then serves it', async () => {
    // Saturation 0: every sample counts as saturated.
    const { app, admission, firstStarted, finishFirst } = await appWith({ saturation: 0, maxWaitMs: 60_000, sampleMs: 5 })
    await until(() => admission.state().saturated, 'a saturated sample')
    const first = app.inject({ method: 'GET', url: '/first' })
    await firstStarted
    let laterAnswered = false
    const later = app.inject({ method: 'GET', url: '/later' }).then((res) => {
      laterAnswered = true
      return res
    })
    await until(() => admission.state().waiting === 1, 'the later request waiting')
    // A route without a class is not held.
    expect((await app.inject({ method: 'GET', url: '/other' })).json()).toEqual({ route: 'other' })
    expect(laterAnswered).toBe(false)
    finishFirst()
    expect((await first).json()).toEqual({ route: 'first' })
    expect((await later).json()).toEqual({ route: 'later' })
    expect(admission.state()).toMatchObject({ first: 0, waiting: 0 })
  })

  it('lets one waiting later request in per first request that finishes, and all of them once none is left', async () => {
    const { app, admission, started, finishFirst } = await appWith({ saturation: 0, maxWaitMs: 60_000, sampleMs: 5 })
    await until(() => admission.state().saturated, 'a saturated sample')
    const firsts = [app.inject({ method: 'GET', url: '/first' }), app.inject({ method: 'GET', url: '/first' })]
    await until(() => started() === 2, 'two first requests in progress')
    const answered: number[] = []
    const laters = [0, 1, 2].map((n) =>
      app.inject({ method: 'GET', url: '/later' }).then((res) => {
        answered.push(n)
        return res
      }),
    )
    await until(() => admission.state().waiting === 3, 'three later requests waiting')
    finishFirst()
    await firsts[0]
    // The longest waiter went in; the other two still wait for the first request in progress.
    await laters[0]
    expect(answered).toEqual([0])
    expect(admission.state()).toMatchObject({ first: 1, waiting: 2 })
    finishFirst()
    await Promise.all([firsts[1], ...laters])
    expect(answered).toEqual([0, 1, 2])
    expect(admission.state()).toMatchObject({ first: 0, waiting: 0 })
  })

  it('never holds a later request longer than maxWaitMs', async () => {
    const { app, admission, firstStarted, finishFirst } = await appWith({ saturation: 0, maxWaitMs: 0, sampleMs: 5 })
    await until(() => admission.state().saturated, 'a saturated sample')
    const first = app.inject({ method: 'GET', url: '/first' })
    await firstStarted
    // The first is still in progress: the later one is released by the time limit alone.
    expect((await app.inject({ method: 'GET', url: '/later' })).json()).toEqual({ route: 'later' })
    expect(admission.state().first).toBe(1)
    finishFirst()
    await first
  })

  it('admits everything at once while the process is not saturated', async () => {
    // Saturation above 1 is never reached: admission is off.
    const { app, admission, firstStarted, finishFirst } = await appWith({ saturation: 1.01, maxWaitMs: 60_000, sampleMs: 5 })
    const first = app.inject({ method: 'GET', url: '/first' })
    await firstStarted
    expect((await app.inject({ method: 'GET', url: '/later' })).json()).toEqual({ route: 'later' })
    expect(admission.state()).toMatchObject({ first: 1, waiting: 0, saturated: false })
    finishFirst()
    await first
    expect(admission.state().first).toBe(0)
  })
})

describe('admission classes of the storefront', () => {
  it('serves checkouts first and holds new baskets', async () => {
    const classes = await admissionClasses('/stf/v1', basketRoutes, orderRoutes, catalogRoutes)
    expect(classes.get('POST /stf/v1/baskets/:id/checkout')).toBe('first')
    expect(classes.get('POST /stf/v1/baskets')).toBe('later')
    expect(classes.get('GET /stf/v1/events')).toBeUndefined()
  })
})
