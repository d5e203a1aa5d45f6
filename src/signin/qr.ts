import QRCode from 'qrcode';

/**
 * The otpauth:// URI as an inline SVG QR code, made on the server: the page needs no script and no image
 * request, and the secret never leaves the response it is shown in. SVG is markup, which the pages' CSP
 * allows; it has no style attribute. It is marked as one image with a name for screen readers, which are told
 * the key as text next to it.
 */
export async function qrSvg(uri: string): Promise<string> {
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
  return svg.trim().replace(/^<svg\b/, '<svg role="img" aria-label="QR code to scan with your authenticator app" focusable="false"');
}
