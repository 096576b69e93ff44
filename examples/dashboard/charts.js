// uPlot charts for the dashboard: the quality curve of a loop and lambda per
// pyramid layer. Only presentation lives here; every number shown comes from
// the engines (app.js) or the data file.

const COLORS = {
  quality: '#2563eb',
  confidence: '#9333ea',
  passed: '#16a34a',
  failed: '#dc2626',
  skipped: '#94a3b8',
  threshold: '#f59e0b',
  stop: '#dc2626',
  run: '#2563eb',
  verified: '#0d9488',
  notRun: '#cbd5e1',
  grid: '#e5e7eb',
  axis: '#475569',
};

const axis = (extra = {}) => ({
  stroke: COLORS.axis,
  grid: { stroke: COLORS.grid, width: 1 },
  ticks: { stroke: COLORS.grid, width: 1 },
  font: '12px system-ui, sans-serif',
  labelFont: '12px system-ui, sans-serif',
  ...extra,
});

// Draws a vertical marker at x = `at()` (plot value) with a label, and greys
// the region after it: what the loop never needed to run.
function stopMarkerPlugin(at, label) {
  return {
    hooks: {
      drawClear: [
        (u) => {
          const x = at();
          if (x == null) return;
          const { ctx, bbox } = u;
          const px = Math.round(u.valToPos(x, 'x', true));
          ctx.save();
          ctx.fillStyle = 'rgba(148, 163, 184, 0.13)';
          ctx.fillRect(px, bbox.top, bbox.left + bbox.width - px, bbox.height);
          ctx.restore();
        },
      ],
      draw: [
        (u) => {
          const x = at();
          if (x == null) return;
          const { ctx, bbox } = u;
          const px = Math.round(u.valToPos(x, 'x', true));
          const ratio = window.devicePixelRatio || 1;
          ctx.save();
          ctx.strokeStyle = COLORS.stop;
          ctx.lineWidth = 2 * ratio;
          ctx.setLineDash([6 * ratio, 4 * ratio]);
          ctx.beginPath();
          ctx.moveTo(px, bbox.top);
          ctx.lineTo(px, bbox.top + bbox.height);
          ctx.stroke();
          ctx.setLineDash([]);
          ctx.fillStyle = COLORS.stop;
          ctx.font = `${600} ${12 * ratio}px system-ui, sans-serif`;
          const text = label();
          const w = ctx.measureText(text).width;
          const right = bbox.left + bbox.width;
          // Right of the line if it fits, else left of it; never outside the plot (on a
          // narrow screen neither side may hold it: then it stays inside and crosses the line).
          const side = px + 6 * ratio + w > right ? px - 6 * ratio - w : px + 6 * ratio;
          const tx = Math.max(bbox.left + 2 * ratio, Math.min(side, right - w - 2 * ratio));
          ctx.textAlign = 'left'; // uPlot leaves the axes' alignment set
          ctx.textBaseline = 'alphabetic';
          ctx.fillText(text, tx, bbox.top + 14 * ratio);
          ctx.restore();
        },
      ],
    },
  };
}

function sizeOf(el, height) {
  const width = Math.max(320, Math.floor(el.clientWidth || el.parentElement?.clientWidth || 720));
  return { width, height };
}

// Follows the container's width. Resizing the plot changes the container's
// height, so the size is applied on the next frame and only when the width
// really changed (no ResizeObserver loop).
function autoResize(el, plot, height) {
  let width = sizeOf(el, height).width;
  let frame = 0;
  const ro = new ResizeObserver(() => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => {
      const size = sizeOf(el, height);
      if (size.width !== width) {
        width = size.width;
        plot.setSize(size);
      }
    });
  });
  ro.observe(el);
  return () => {
    cancelAnimationFrame(frame);
    ro.disconnect();
  };
}

/**
 * What both charts share: a uPlot instance in `el` that follows the element's width,
 * (re)built by `mount` and released by `destroy`. Subclasses give `data(view)`.
 */
class Chart {
  constructor(uPlot, el, height) {
    this.uPlot = uPlot;
    this.el = el;
    this.height = height;
    this.view = null;
    this.plot = null;
  }

  mount(opts, view) {
    this.plot = new this.uPlot(opts, this.data(view), this.el);
    this.unobserve = autoResize(this.el, this.plot, this.height);
  }

  destroy() {
    this.unobserve?.();
    this.plot?.destroy();
    this.plot = null;
  }
}

/**
 * Quality curve of a loop. `view` = {iterations, quality, confidence, status,
 * minQuality, confidenceThreshold, stopIteration, stopTrigger, xRange?}; all
 * arrays share the x of `iterations`.
 */
export class LoopChart extends Chart {
  constructor(uPlot, el, { height = 300 } = {}) {
    super(uPlot, el, height);
  }

  data(v) {
    const only = (s) => v.quality.map((q, i) => (v.status[i] === s ? q : null));
    return [
      v.iterations,
      v.quality,
      v.confidence.map((c) => (c == null ? null : c * 100)),
      v.iterations.map(() => v.minQuality),
      v.iterations.map(() => (v.confidenceThreshold == null ? null : v.confidenceThreshold * 100)),
      only('passed'),
      only('failed'),
      only('skipped'),
    ];
  }

  render(view) {
    this.view = view;
    if (this.plot) {
      this.plot.setData(this.data(view));
      return;
    }
    const dot = (color, label) => ({
      label,
      stroke: color,
      fill: color,
      width: 0,
      paths: () => null,
      points: { show: true, size: 11, stroke: '#fff', width: 2, fill: color },
      value: (u, v) => (v == null ? '–' : v.toFixed(1)),
    });
    const opts = {
      ...sizeOf(this.el, this.height),
      cursor: { drag: { x: false, y: false } },
      legend: { live: true },
      scales: {
        // The live view fixes x to the whole run (`xRange`) so the curve grows into it.
        x: { time: false, range: (u, min, max) => this.view?.xRange ?? [min === max ? min - 1 : min, min === max ? max + 1 : max] },
        y: { range: [0, 100] },
      },
      axes: [
        axis({ label: 'iteration', incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000], values: (u, vals) => vals.map((v) => (Number.isInteger(v) ? v : '')) }),
        axis({ label: 'quality (0–100)', size: 50 }),
      ],
      series: [
        { label: 'iteration', value: (u, v) => (v == null ? '–' : `#${v}`) },
        { label: 'quality', stroke: COLORS.quality, width: 2.5, points: { show: false }, value: (u, v) => (v == null ? '–' : v.toFixed(1)) },
        { label: 'confidence ×100', stroke: COLORS.confidence, width: 1.5, dash: [4, 3], points: { show: false }, value: (u, v) => (v == null ? '–' : v.toFixed(1)) },
        { label: 'min quality', stroke: COLORS.threshold, width: 1, dash: [2, 4], points: { show: false }, value: (u, v) => (v == null ? '–' : String(v)) },
        { label: 'confidence threshold', stroke: COLORS.confidence, width: 1, dash: [2, 4], alpha: 0.5, points: { show: false }, value: (u, v) => (v == null ? '–' : v.toFixed(1)) },
        dot(COLORS.passed, 'verified: passed'),
        dot(COLORS.failed, 'verified: failed'),
        dot(COLORS.skipped, 'verification skipped'),
      ],
      plugins: [
        stopMarkerPlugin(
          () => this.view?.stopIteration ?? null,
          () => `stop: ${this.view?.stopTrigger ?? ''}`,
        ),
      ],
    };
    this.mount(opts, view);
  }
}

/**
 * Lambda per pyramid layer as bars: executed layers (run before the exit),
 * verified layers (run after it to check a prediction; red when the
 * prediction was wrong) and layers never run
 * (lambda of the recorded result, for context), with the exit threshold.
 * `view` = {names, ran, verified, mispredicted, notRun, minLambda, exitLayer}.
 */
export class PyramidChart extends Chart {
  constructor(uPlot, el, { height = 260 } = {}) {
    super(uPlot, el, height);
  }

  data(v) {
    const x = v.names.map((_, i) => i);
    return [x, v.ran, v.verified, v.mispredicted, v.notRun, x.map(() => v.minLambda)];
  }

  render(view) {
    const sameShape = this.view && this.view.names.join('\u0000') === view.names.join('\u0000');
    this.view = view;
    if (this.plot && sameShape) {
      this.plot.setData(this.data(view));
      return;
    }
    this.destroy();
    const uPlot = this.uPlot;
    const bars = uPlot.paths.bars({ size: [0.6, 80], gap: 2 });
    const bar = (label, color) => ({
      label,
      stroke: color,
      fill: color,
      width: 1,
      paths: bars,
      points: { show: false },
      value: (u, v) => (v == null ? '–' : v.toFixed(1)),
    });
    const names = view.names;
    const opts = {
      ...sizeOf(this.el, this.height),
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false, range: (u, min, max) => [min - 0.5, max + 0.5] }, y: { range: [0, 100] } },
      axes: [
        axis({ label: 'layer', splits: () => names.map((_, i) => i), values: (u, vals) => vals.map((v) => names[v] ?? '') }),
        axis({ label: 'lambda (0–100)', size: 50 }),
      ],
      series: [
        { label: 'layer', value: (u, v) => (v == null ? '–' : `${v}: ${names[v] ?? ''}`) },
        bar('ran', COLORS.run),
        bar('ran to check: correct', COLORS.verified),
        bar('ran to check: wrong', COLORS.failed),
        bar('not run (recorded)', COLORS.notRun),
        { label: 'min lambda to exit', stroke: COLORS.threshold, width: 2, dash: [6, 4], points: { show: false }, value: (u, v) => (v == null ? '–' : String(v)) },
      ],
      plugins: [
        stopMarkerPlugin(
          () => (this.view?.exitLayer == null ? null : this.view.exitLayer + 0.5),
          () => 'exit',
        ),
      ],
    };
    this.mount(opts, view);
  }
}
