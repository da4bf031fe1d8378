/**
 * The camera and the QR decoder: zxing-wasm's reader, its WebAssembly served from our origin
 * (by default it would fetch it from a public CDN). The rear camera first; each frame is decoded
 * on the page (5-12 ms here); a code is reported once, and again only after 3 s in which the
 * camera did not see it: a ticket held up in front of the camera is one scan.
 */
import { prepareZXingModule, readBarcodes } from '../vendor/zxing/reader/index.js'

const WASM = new URL('../vendor/zxing/zxing_reader.wasm', import.meta.url).href
const UNSEEN_MS = 3000
const READER = { formats: ['QRCode'], tryHarder: true, maxNumberOfSymbols: 1 }

prepareZXingModule({ overrides: { locateFile: (path, prefix) => (path.endsWith('.wasm') ? WASM : prefix + path) }, fireImmediately: true })

/**
 * Starts the camera into `video` and calls `onCode(text, frameAt)` for each new code, where
 * `frameAt` is when its frame was taken (performance.now()). Answers a function that stops it.
 */
export async function startCamera(video, onCode) {
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: false,
    video: { facingMode: { ideal: 'environment' }, width: { ideal: 1280 }, height: { ideal: 720 } },
  })
  video.srcObject = stream
  // The decoder's first call compiles its code paths: pay it on an empty frame, not on the first ticket.
  await readBarcodes(new ImageData(64, 64), READER).catch(() => {})
  await video.play()
  const canvas = document.createElement('canvas')
  const context = canvas.getContext('2d', { willReadFrequently: true })
  const seen = new Map()
  let stopped = false

  const next = () => {
    if (stopped) return
    if (video.requestVideoFrameCallback) video.requestVideoFrameCallback(frame)
    else requestAnimationFrame(frame)
  }

  async function frame() {
    try {
      if (video.videoWidth === 0) return
      const frameAt = performance.now()
      canvas.width = video.videoWidth
      canvas.height = video.videoHeight
      context.drawImage(video, 0, 0)
      const [result] = await readBarcodes(context.getImageData(0, 0, canvas.width, canvas.height), READER)
      const now = performance.now()
      for (const [text, at] of seen) if (now - at > UNSEEN_MS) seen.delete(text)
      if (result?.isValid && result.text) {
        const fresh = !seen.has(result.text)
        seen.set(result.text, now)
        if (fresh) onCode(result.text, frameAt)
      }
    } catch (error) {
      console.warn('frame not decoded', error)
    } finally {
      next()
    }
  }

  next()
  return () => {
    stopped = true
    for (const track of stream.getTracks()) track.stop()
  }
}
