/**
 * Metrics a plugin (or kernel code) adds to the node's Prometheus registry, served by the kernel at
 * `GET /metrics` (prom-client behind it; plugins never import it). Names are snake_case with the unit as
 * suffix (`_total` for counters, `_seconds`, `_bytes`), prefixed `atendo_`; labels must have few values
 * (never ids of companies, users or messages). Registering a name twice returns the first metric when
 * the kind and labels match, and throws otherwise.
 */
export interface MetricOptions<L extends string = string> {
  /** `atendo_<area>_<what>[_unit]`, e.g. `atendo_inbound_messages_total`. */
  name: string;
  help: string;
  labelNames?: readonly L[];
}

export type Labels<L extends string> = Partial<Record<L, string | number>>;

export interface Counter<L extends string = string> {
  inc(labels?: Labels<L>, value?: number): void;
}

export interface Gauge<L extends string = string> {
  set(labels: Labels<L>, value: number): void;
  inc(labels?: Labels<L>, value?: number): void;
  dec(labels?: Labels<L>, value?: number): void;
}

export interface Histogram<L extends string = string> {
  observe(labels: Labels<L>, value: number): void;
  /** Starts a timer; calling the returned function observes the seconds elapsed. */
  startTimer(labels?: Labels<L>): (labels?: Labels<L>) => number;
}

export interface Metrics {
  counter<L extends string = string>(opts: MetricOptions<L>): Counter<L>;
  /** `collect` runs at each scrape to set the current values (e.g. a queue depth read from a broker). */
  gauge<L extends string = string>(opts: MetricOptions<L> & { collect?: (gauge: Gauge<L>) => Promise<void> | void }): Gauge<L>;
  /** `buckets` in the metric's unit (seconds by default: 5 ms to 10 s). */
  histogram<L extends string = string>(opts: MetricOptions<L> & { buckets?: number[] }): Histogram<L>;
}
