import type { FastifyReply } from 'fastify'
import { z } from 'zod'

/** The 200 answer of a route that draws an image as SVG, as the OpenAPI document shows it. */
export const ZSvgDocument = z.string().describe('An SVG document').meta({ contentMediaType: 'image/svg+xml' })

/**
 * Replies an SVG document as it is: `image/svg+xml`, the caller's `Cache-Control`, and past the
 * route's response serializer (which would quote the document as a JSON string).
 */
export const sendSvg = (reply: FastifyReply, svg: string, cacheControl: string) =>
  reply
    .type('image/svg+xml')
    .header('cache-control', cacheControl)
    .serializer((payload: unknown) => payload as string)
    .send(svg)
