import type { Db } from '../../platform/db/database.js'
import { findPlanDrawing, readPlanPlaces, type PlanPlace } from './seats.repo.js'

export type PlanPlacesMemoOptions = {
  /** At most this many seats kept in all (a seat is some 200 bytes): the plans asked least recently go first. */
  maxSeats?: number
}

export type PlanPlacesMemo = ReturnType<typeof createPlanPlacesMemo>

/** What a plan draws: its seats in the plan's order, its categories' colours, its size (when it gives one). */
export type PlanPlaces = {
  places: PlanPlace[]
  categories: { name: string; color: string }[]
  size: { width: number; height: number } | undefined
}

const isLength = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value > 0

async function readPlan(db: Db, planId: string): Promise<PlanPlaces> {
  const [drawing, places] = await Promise.all([findPlanDrawing(db, planId), readPlanPlaces(db, planId)])
  const size = drawing?.size
  return {
    places,
    categories: (drawing?.categories ?? []).map(({ name, color }) => ({ name, color })),
    size: size && isLength(size.width) && isLength(size.height) ? { width: size.width, height: size.height } : undefined,
  }
}

/**
 * The seats of the plans asked lately, as the map names and draws them, in the plan's order. A
 * plan never changes (a new layout is a new plan, with a new id), so nothing makes a kept plan
 * stale, and a deleted one is no longer asked for and ages out. Reading a 50,000-seat plan is
 * most of the work of a seat map; the seats' states are read afresh every time
 * (readTakenSeats). One reading at a time per plan: callers meanwhile share it.
 */
export function createPlanPlacesMemo(options: PlanPlacesMemoOptions = {}) {
  const maxSeats = options.maxSeats ?? 250_000
  // Least recently asked first (a Map keeps insertion order).
  const plans = new Map<string, Promise<PlanPlaces>>()
  const sizes = new Map<string, number>()
  let seats = 0

  const drop = (planId: string) => {
    plans.delete(planId)
    seats -= sizes.get(planId) ?? 0
    sizes.delete(planId)
  }

  return {
    /** The plan's seats and drawing (none for a plan that does not exist). */
    placesOf(db: Db, planId: string): Promise<PlanPlaces> {
      const kept = plans.get(planId)
      if (kept) {
        plans.delete(planId)
        plans.set(planId, kept)
        return kept
      }
      const reading = readPlan(db, planId)
      plans.set(planId, reading)
      reading.then(
        ({ places }) => {
          if (plans.get(planId) !== reading) return
          sizes.set(planId, places.length)
          seats += places.length
          for (const [oldest] of plans) {
            if (seats <= maxSeats || oldest === planId) break
            drop(oldest)
          }
          if (seats > maxSeats) drop(planId)
        },
        () => {
          if (plans.get(planId) === reading) drop(planId)
        },
      )
      return reading
    },
    /** What is kept now (for tests). */
    size: () => ({ plans: plans.size, seats }),
  }
}
