/**
 * Charts are SVG strings rendered at build time by Apache ECharts' server-side renderer
 * (https://echarts.apache.org/handbook/en/how-to/cross-platform/server/), so pages need no
 * JavaScript. Each chart gets a <title> and <desc> inside the SVG; the page wraps it in a
 * <figure role="img" aria-label> with a caption.
 */
import * as echarts from 'echarts';

const FONT = 'Source Serif Pro, Georgia, "Times New Roman", serif';
const INK = '#1f2933';
const MUTED = '#6b7280';
const PALETTE = ['#1f4e79', '#b45309', '#2f6f4f', '#7b2d8b', '#9f1239', '#0e7490'];

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

function render(option: echarts.EChartsCoreOption, width: number, height: number, title: string, desc: string): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({ animation: false, textStyle: { fontFamily: FONT, color: INK }, color: PALETTE, ...option });
    const svg = chart.renderToSVGString();
    // Scalable: the viewBox keeps proportions while CSS sets the width.
    return svg
      .replace(/^<svg([^>]*?) width="(\d+)" height="(\d+)"/, `<svg$1 viewBox="0 0 $2 $3" preserveAspectRatio="xMidYMid meet" focusable="false"`)
      .replace(/^(<svg[^>]*>)/, `$1<title>${escapeXml(title)}</title><desc>${escapeXml(desc)}</desc>`);
  } finally {
    chart.dispose();
  }
}

function quartiles(sorted: number[]): [number, number, number, number, number] {
  const q = (p: number) => {
    const i = (sorted.length - 1) * p;
    const lo = Math.floor(i);
    const hi = Math.ceil(i);
    return (sorted[lo] ?? 0) + ((sorted[hi] ?? 0) - (sorted[lo] ?? 0)) * (i - lo);
  };
  return [sorted[0] ?? 0, q(0.25), q(0.5), q(0.75), sorted.at(-1) ?? 0];
}

export type DistributionInput = {
  title: string;
  variants: { label: string; values: number[] }[];
  axisName: string;
  formatValue: (v: number) => string;
  /** Axis ticks, when they want fewer digits than the values (default formatValue). */
  formatAxis?: (v: number) => string;
};

/** Per-variant box plot with every repetition as a point on top (a strip chart). */
/** The frame both charts share: title, grid, a value axis along x and the groups down y. */
const chartTitle = (text: string) => ({ text, left: 0, top: 0, textStyle: { fontSize: 14, fontWeight: 600, fontFamily: FONT, color: INK } });
const valueAxis = (name: string, formatter: (v: number) => string, range: { min: number; max: number } | { scale: true }) => ({
  type: 'value' as const,
  name,
  nameLocation: 'middle' as const,
  nameGap: 26,
  ...range,
  axisLabel: { formatter, color: MUTED },
  splitLine: { lineStyle: { color: '#e5e7eb' } },
});
const categoryAxis = (labels: string[], width: number) => ({
  type: 'category' as const,
  data: labels,
  inverse: true,
  axisLabel: { color: INK, width, overflow: 'truncate' as const },
  axisTick: { show: false },
});

export function distributionChart(input: DistributionInput): string {
  const labels = input.variants.map((v) => v.label);
  const height = 70 + 46 * Math.max(2, labels.length);
  const desc = input.variants
    .map((v) => {
      const s = [...v.values].sort((a, b) => a - b);
      const [, , med] = quartiles(s);
      return `${v.label}: ${v.values.length} values from ${input.formatValue(s[0] ?? 0)} to ${input.formatValue(s.at(-1) ?? 0)}, median ${input.formatValue(med)}`;
    })
    .join('; ');
  return render(
    {
      title: chartTitle(input.title),
      grid: { left: 8, right: 24, top: 40, bottom: 36, containLabel: true },
      xAxis: valueAxis(input.axisName, (v) => (input.formatAxis ?? input.formatValue)(v), { scale: true }),
      yAxis: categoryAxis(labels, 140),
      series: [
        {
          type: 'boxplot',
          name: 'spread',
          data: input.variants.map((v) => quartiles([...v.values].sort((a, b) => a - b))),
          itemStyle: { color: '#eef2f7', borderColor: '#64748b' },
          boxWidth: [10, 26],
        },
        {
          type: 'scatter',
          name: 'repetitions',
          data: input.variants.flatMap((v) => v.values.map((x) => [x, v.label])),
          symbolSize: 8,
          itemStyle: { color: PALETTE[0], opacity: 0.75 },
        },
      ],
    },
    640,
    height,
    input.title,
    desc,
  );
}

export type DifferenceInput = {
  title: string;
  /** Improvement of candidate over baseline as a fraction (0.375 = 37.5% faster), with its CI. */
  rows: { label: string; estimate: number; low: number | null; high: number | null; significant: boolean }[];
  axisName: string;
};

/** A forest plot: per hardware group the improvement with its 95% CI, and a line at zero. */
export function differenceChart(input: DifferenceInput): string {
  const rows = input.rows;
  const pct = (v: number) => `${(v * 100).toFixed(0)}%`;
  const finiteEnds = rows.flatMap((r) => [r.estimate, r.low, r.high]).filter((x): x is number => x !== null && Number.isFinite(x));
  const lo = Math.min(0, ...finiteEnds);
  const hi = Math.max(0, ...finiteEnds);
  // Axis ends on whole 5% steps, with a little room around the widest interval.
  const pad = (hi - lo) * 0.05 || 0.05;
  const min = Math.floor((lo - pad) * 20) / 20;
  const max = Math.ceil((hi + pad) * 20) / 20;
  const height = 80 + 40 * Math.max(2, rows.length);
  const desc = rows
    .map((r) => `${r.label}: ${pct(r.estimate)} (95% CI ${r.low === null ? '−∞' : pct(r.low)} to ${r.high === null ? '∞' : pct(r.high)})${r.significant ? ', significant' : ', not significant'}`)
    .join('; ');
  return render(
    {
      title: chartTitle(input.title),
      grid: { left: 8, right: 24, top: 40, bottom: 40, containLabel: true },
      xAxis: valueAxis(input.axisName, pct, { min, max }),
      yAxis: categoryAxis(rows.map((r) => r.label), 180),
      series: [
        {
          // The interval drawn as whiskers: a box plot whose box collapses onto the estimate.
          type: 'boxplot',
          name: '95% CI',
          data: rows.map((r) => [r.low ?? min, r.estimate, r.estimate, r.estimate, r.high ?? max]),
          itemStyle: { color: 'transparent', borderColor: INK, borderWidth: 1.5 },
          boxWidth: [14, 14],
        },
        {
          type: 'scatter',
          name: 'estimate',
          data: rows.map((r) => ({ value: [r.estimate, r.label], itemStyle: { color: r.significant ? PALETTE[0] : '#ffffff', borderColor: PALETTE[0], borderWidth: 2 } })),
          symbolSize: 11,
          markLine: { silent: true, symbol: 'none', label: { show: false }, lineStyle: { color: MUTED, type: 'dashed' }, data: [{ xAxis: 0 }] },
        },
      ],
    },
    640,
    height,
    input.title,
    desc,
  );
}
