export type Pt = [number, number];

/** The four corners of a rotated rectangle (centre, size, angle in degrees, as OpenCV's RotatedRect). */
export function rectCorners(cx: number, cy: number, w: number, h: number, angleDeg: number): Pt[] {
  const a = (angleDeg * Math.PI) / 180;
  const ux = Math.cos(a) / 2, uy = Math.sin(a) / 2; // half of the unit vector along the width
  const corners: Pt[] = [];
  for (const [sw, sh] of [[-1, -1], [1, -1], [1, 1], [-1, 1]] as const) {
    corners.push([cx + sw * w * ux - sh * h * uy, cy + sw * w * uy + sh * h * ux]);
  }
  return corners;
}

/**
 * Orders four corners as top-left, top-right, bottom-right, bottom-left: the two leftmost points
 * are the left side (upper one first), the two rightmost the right side.
 */
export function orderQuad(pts: Pt[]): Pt[] {
  const byX = [...pts].sort((p, q) => p[0] - q[0] || p[1] - q[1]);
  const [l1, l2, r1, r2] = byX as [Pt, Pt, Pt, Pt];
  const [tl, bl] = l1[1] <= l2[1] ? [l1, l2] : [l2, l1];
  const [tr, br] = r1[1] <= r2[1] ? [r1, r2] : [r2, r1];
  return [tl, tr, br, bl];
}

export function dist(p: Pt, q: Pt): number {
  return Math.hypot(p[0] - q[0], p[1] - q[1]);
}

export function boundsOf(quad: Pt[]): { x: number; y: number; w: number; h: number } {
  const xs = quad.map((p) => p[0]), ys = quad.map((p) => p[1]);
  const x = Math.min(...xs), y = Math.min(...ys);
  return { x, y, w: Math.max(...xs) - x, h: Math.max(...ys) - y };
}
