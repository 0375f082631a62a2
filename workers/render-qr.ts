import type { RenderQrPayload, RenderQrResult } from '../shared/jobs.js';
import { renderQrPng } from '../shared/qr/render-qr-png.js';

/** render-qr: each deep link of the batch as a 1-bit PNG, returned to the waiting API requests. */
export function renderQrJob(data: RenderQrPayload): RenderQrResult {
  return { pngs: data.qrs.map((qr) => renderQrPng(qr.content).toString('base64')) };
}
