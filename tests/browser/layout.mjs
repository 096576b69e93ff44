// Layout checks for the dashboard, shared by the layout test (tests/browser/layout.test.mjs)
// and the installed-package test (tests/browser/installed-dashboard.mjs).

/**
 * Measures the page in the browser: the document's scroll width against the window, every
 * visible table (it must fit its card, or scroll inside its own wrapper that fits), and the
 * visible elements whose box reaches past the window's right edge while no scrolling
 * ancestor clips them.
 */
export function measureLayout(page) {
  return page.evaluate(() => {
    const vw = window.innerWidth;
    const scrolls = (el) => {
      const o = getComputedStyle(el).overflowX;
      return o === 'auto' || o === 'scroll' || o === 'hidden' || o === 'clip';
    };
    const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
    const clipped = (el) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) if (scrolls(p)) return p;
      return null;
    };
    const name = (el) => el.id ? `#${el.id}` : `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}`;
    const tables = [...document.querySelectorAll('table')].filter(visible).map((t) => {
      const card = t.closest('.card') ?? document.body;
      const wrap = clipped(t);
      const cardBox = card.getBoundingClientRect();
      const box = t.getBoundingClientRect();
      const fits = box.left >= cardBox.left - 0.5 && box.right <= cardBox.right + 0.5;
      const wrapBox = wrap?.getBoundingClientRect();
      const scrollsInCard = !!wrap && card.contains(wrap) && wrapBox.right <= cardBox.right + 0.5 && wrapBox.left >= cardBox.left - 0.5;
      return { table: name(t), width: Math.round(box.width), card: Math.round(cardBox.width), fits, scrollsInCard, ok: fits || scrollsInCard };
    });
    const overflowing = [];
    for (const el of document.body.querySelectorAll('*')) {
      if (!visible(el)) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= vw + 0.5 || clipped(el)) continue;
      overflowing.push(`${name(el)} (right edge ${Math.round(r.right)})`);
    }
    return {
      innerWidth: vw,
      scrollWidth: document.scrollingElement.scrollWidth,
      tables,
      overflowing: overflowing.slice(0, 10),
    };
  });
}

/** Asserts that nothing overflows the window; `what` names the page state in the message. */
export function assertFits(assert, layout, what) {
  assert.ok(
    layout.scrollWidth <= layout.innerWidth,
    `${what}: the page is ${layout.scrollWidth} px wide in a ${layout.innerWidth} px window (it scrolls sideways); past the edge: ${layout.overflowing.join(', ')}`,
  );
  assert.deepEqual(layout.overflowing, [], `${what}: elements reach past the window's right edge`);
  const bad = layout.tables.filter((t) => !t.ok);
  assert.deepEqual(bad, [], `${what}: tables that neither fit their card nor scroll inside it`);
}
