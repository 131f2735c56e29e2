import type { APIRoute, GetStaticPaths } from 'astro';
import type { Metric } from '../../../../lib/load.ts';
import type { MeasuredTable } from '../../../../lib/views.ts';
import { siteData } from '../../../../lib/load.ts';
import { measuredTables } from '../../../../lib/views.ts';
import { distributionChartAt } from '../../../../lib/charts.ts';
import { chartFileName, chartIsFile, distributionInput, type ChartWidth } from '../../../../lib/chart-files.ts';

// The distribution charts too large to draw inline (src/lib/chart-files.ts), one file per width.
export const getStaticPaths: GetStaticPaths = async () => {
  const data = await siteData();
  return data.scenarios.flatMap((sc) => {
    return measuredTables(sc, data)
      .filter((t) => chartIsFile(t))
      .flatMap((t) =>
        (['wide', 'narrow'] as const).map((width) => ({
          params: { key: sc.key, file: chartFileName(t, width) },
          props: { table: t, metric: sc.metric, width },
        })),
      );
  });
};

type Props = { table: MeasuredTable; metric: Metric; width: ChartWidth };

export const GET: APIRoute<Props> = ({ props }) =>
  new Response(distributionChartAt(distributionInput(props.table, props.metric), props.width), {
    headers: { 'content-type': 'image/svg+xml' },
  });
