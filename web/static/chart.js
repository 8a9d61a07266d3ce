// A small time chart on a canvas: up to three series over the same window, y from 0 to the
// largest value seen (or a fixed top, such as 1 for a fraction), NaN drawn as a gap. Until
// the window is full the x axis spans the points there are (at least min_points), so a
// fresh page draws lines rather than a sliver at the right edge.

const colors = ['#2457a6', '#e07b00', '#8e3bb8'];
const min_points = 20;

export class time_chart {
  constructor(canvas, { top = null, format = (v) => String(v) } = {}) {
    this.canvas = canvas;
    this.top = top;
    this.format = format;
  }

  // series: arrays of numbers, oldest first, the newest last, up to capacity points each.
  draw(series, capacity) {
    const points = Math.min(capacity, Math.max(min_points, ...series.map((values) => values.length)));
    const ratio = window.devicePixelRatio || 1;
    const width = this.canvas.clientWidth;
    const height = this.canvas.clientHeight;
    if (this.canvas.width !== Math.round(width * ratio)) this.canvas.width = Math.round(width * ratio);
    if (this.canvas.height !== Math.round(height * ratio)) this.canvas.height = Math.round(height * ratio);
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    let top = this.top ?? 0;
    if (this.top === null) {
      for (const values of series) for (const v of values) if (Number.isFinite(v)) top = Math.max(top, v);
    }
    top = top > 0 ? top : 1;
    const pad = 12;
    const x_of = (i) => (width * i) / Math.max(1, points - 1);
    const y_of = (v) => pad + (height - 2 * pad) * (1 - v / top);
    ctx.strokeStyle = '#e8ebf0';
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(0, y_of(0));
    ctx.lineTo(width, y_of(0));
    ctx.moveTo(0, y_of(top));
    ctx.lineTo(width, y_of(top));
    ctx.stroke();
    ctx.fillStyle = '#667085';
    ctx.font = '10px system-ui, sans-serif';
    ctx.fillText(this.format(top), 2, pad - 2);
    series.forEach((values, s) => {
      const offset = points - values.length;
      ctx.strokeStyle = colors[s % colors.length];
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      let drawing = false;
      values.forEach((v, i) => {
        if (!Number.isFinite(v)) {
          drawing = false;
          return;
        }
        const x = x_of(offset + i);
        const y = y_of(Math.min(v, top));
        if (drawing) ctx.lineTo(x, y);
        else ctx.moveTo(x, y);
        drawing = true;
      });
      ctx.stroke();
    });
  }
}
