import { describe, expect, it } from 'vitest';
import { axisUnit, distributionChart, lineChart } from './charts.ts';

// Found by the POST /v1/runs property test: a stored duration of 2.3e-53 s made
// ECharts' tick computation fail an assertion and the site build exit 1 (outside production,
// e.g. under the test runner); in production the axis lost its ticks. Such values are drawn in
// units of a power of ten and labelled with their real values.
const format = (v: number) => v.toExponential(1);
const ticks = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

describe('charts over values ECharts cannot tick', () => {
  it.each([2.32298303036481e-53, 1e-20, 1e-300, 1.7976931348623157e308])(
    'a distribution of [%d, 0] renders with labelled ticks',
    (x) => {
      const svg = distributionChart({
        title: 't',
        axisName: 's',
        formatValue: format,
        variants: [
          { label: 'a', values: [x] },
          { label: 'b', values: [0] },
        ],
      });
      expect(svg.wide).toMatch(/^<svg/);
      expect(ticks(svg.wide).filter((t) => /e[+-]\d+$/.test(t ?? '')).length).toBeGreaterThan(1);
    },
  );

  it('a line chart with x and y near 1e-200 renders', () => {
    const svg = lineChart({
      title: 't',
      xName: 'x',
      yName: 'y',
      log: 'none',
      formatY: format,
      formatX: format,
      lines: [
        {
          label: 'a',
          points: [
            { x: 0, y: 3e-200 },
            { x: 1e-200, y: 0 },
          ],
        },
      ],
    });
    expect(ticks(svg.wide).some((t) => /e-20\d$/.test(t ?? ''))).toBe(true);
  });

  it('leaves ordinary values alone', () => {
    expect(axisUnit([0.001, 12.5, 1e12])).toBe(1);
    expect(axisUnit([])).toBe(1);
    expect(axisUnit([2.3e-53, 0])).toBe(1e-53);
    expect(axisUnit([5e-324])).toBe(5e-324);
  });
});

describe('axes for people', () => {
  const plain = (v: number) => v.toLocaleString('en-US');
  it('an integer parameter (virtual users 1, 2, 4) gets integer ticks only', () => {
    const svg = lineChart({
      title: 'NOPM per virtual users',
      xName: 'virtual users',
      yName: 'NOPM',
      log: 'none',
      formatY: plain,
      lines: [
        {
          label: 'ff100',
          points: [
            { x: 1, y: 2100 },
            { x: 2, y: 3900 },
            { x: 4, y: 8200 },
          ],
        },
      ],
    });
    for (const s of [svg.wide, svg.narrow]) {
      const labels = ticks(s).filter((t) => /^[\d.,]+$/.test(t ?? ''));
      expect(labels).toEqual(expect.arrayContaining(['1', '2', '3', '4']));
      // No 1.5 or 2.5 users: every tick below 10 (the x axis; y ticks are thousands) is whole.
      expect(labels.filter((t) => Number(t!.replace(/,/g, '')) < 10 && /\./.test(t!))).toEqual([]);
    }
  });

  it('a throughput distribution starts at zero when asked; a duration starts near its data', () => {
    const variants = [
      { label: 'a', values: [52_000, 53_000, 52_500] },
      { label: 'b', values: [31_000, 31_500, 30_800] },
    ];
    const fromZero = distributionChart({
      title: 't',
      axisName: 'rows/s',
      formatValue: plain,
      variants,
      fromZero: true,
    });
    const near = distributionChart({ title: 't', axisName: 'rows/s', formatValue: plain, variants });
    expect(ticks(fromZero.wide)).toContain('0');
    expect(ticks(near.wide)).not.toContain('0');
  });
});

describe('a distribution of a fleet-sized group', () => {
  // A dot is a circle path ("A4 4 0 1 1"); one element per dot, or one shape holding them all.
  // The legend's "repetitions" key is one more circle.
  const dotElements = (svg: string) => [...svg.matchAll(/<path d="[^"]*A[\d.]+ [\d.]+ 0 1 1[^"]*"/g)].length - 1;
  const dotsIn = (svg: string) => [...svg.matchAll(/A[\d.]+ [\d.]+ 0 1 1/g)].length - 1;
  const variants = (n: number) =>
    ['a', 'b'].map((label, v) => ({
      label,
      values: Array.from({ length: n }, (_, i) => 1 + v * 0.1 + ((i * 7919) % 1000) / 5000),
    }));

  it.each([10, 100])('%d values per variant: every dot is its own element (overlaps darken)', (n) => {
    const svg = distributionChart({ title: 't', axisName: 's', formatValue: format, variants: variants(n) });
    expect(dotElements(svg.wide)).toBe(2 * n);
    expect(dotElements(svg.narrow)).toBe(2 * n);
  });

  it('600 values per variant: every dot is drawn, in one shape, at a fraction of the size', () => {
    const many = variants(600);
    const svg = distributionChart({ title: 't', axisName: 's', formatValue: format, variants: many });
    expect(dotElements(svg.wide)).toBe(1);
    expect(dotsIn(svg.wide)).toBe(1200);
    expect(dotsIn(svg.narrow)).toBe(1200);
    // One element per dot would be ~220 bytes a dot; the shape holds each in ~50.
    expect(svg.wide.length).toBeLessThan(1200 * 80);
  });
});

describe('axis ticks of a declared chart', () => {
  it('have the digits that tell them apart, not the values’ "0 0 0"', async () => {
    const { tickFormat } = await import('./report-charts.ts');
    const tick = tickFormat({ decimals: 0 });
    expect([0.2, 0.4, 0.6].map(tick)).toEqual(['0.2', '0.4', '0.6']);
    expect(tick(0.1 + 0.2)).toBe('0.3');
    expect(tick(12000)).toBe('12,000');
    expect(tickFormat({ decimals: 2 })(1)).toBe('1.00');
    const svg = lineChart({
      title: 'fail %',
      xName: 'x',
      yName: '%',
      log: 'none',
      formatY: (v) => v.toFixed(0),
      formatAxisY: tick,
      lines: [{ label: 'a', points: [0.1, 0.3, 0.5].map((y, x) => ({ x, y })) }],
    }).wide;
    const labels = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);
    // The y ticks (0.1 apart); with the values' format they were all "0" (or "1").
    for (const t of ['0.1', '0.2', '0.3', '0.4', '0.5']) expect(labels).toContain(t);
  });
});
