import type { RenderQrPayload, RenderQrResult } from '../shared/platform/jobs.js';
import { renderQrPng } from '../shared/domain/qr-code/render-qr-png.js';

/** render-qr: each deep link of the batch as a 1-bit PNG, returned to the waiting API requests. */
export function renderQrJob(data: RenderQrPayload): RenderQrResult {
  return { pngs: data.qrs.map((qr) => renderQrPng(qr.content).toString('base64')) };
}
