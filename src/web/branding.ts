import type { SigninConfig } from '../config/config.js';

export interface BrandingView {
  organizationName: string | undefined;
  logoUrl: string | undefined;
  accentColor: string;
  /** Text on the accent colour: black or white, whichever contrasts more. */
  onAccentColor: string;
  /** The accent colour where it reads on white (links, focus rings), a near-black otherwise. */
  inkColor: string;
}

const WHITE = '#ffffff';
const BLACK = '#000000';
const NEAR_BLACK = '#1a1a1a';
/** WCAG AA for normal text. */
const TEXT_CONTRAST = 4.5;

/** What the templates get from the configuration; colours are chosen so that any accent stays readable. */
export function brandingView(branding: SigninConfig['branding']): BrandingView {
  const accent = luminance(branding.accentColor);
  return {
    organizationName: branding.organizationName,
    logoUrl: branding.logoUrl,
    accentColor: branding.accentColor,
    onAccentColor: contrast(accent, 1) >= contrast(accent, 0) ? WHITE : BLACK,
    inkColor: contrast(accent, 1) >= TEXT_CONTRAST ? branding.accentColor : NEAR_BLACK,
  };
}

/** WCAG relative luminance of a #rgb or #rrggbb colour. */
function luminance(hex: string): number {
  const digits = hex.slice(1);
  const full = digits.length === 3 ? [...digits].map((d) => d + d).join('') : digits;
  const [r = 0, g = 0, b = 0] = [0, 2, 4].map((i) => {
    const channel = parseInt(full.slice(i, i + 2), 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: number, b: number): number {
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}
