import type { RenderQrPayload, RenderQrResult } from '../shared/jobs.js';
import { renderQrPng } from '../shared/qr/render-qr-png.js';

/** render-qr: the deep link as a 1-bit PNG, returned to the waiting API request. */
export function renderQrJob(data: RenderQrPayload): RenderQrResult {
  return { png: renderQrPng(data.content).toString('base64') };
}
