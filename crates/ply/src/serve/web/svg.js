// Building SVG elements.

const SVG = 'http://www.w3.org/2000/svg';

/** A new SVG element with `attrs` (`text` sets its text), added to `parent`. */
export function el(tag, attrs, parent) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === 'text') node.textContent = value;
    else node.setAttribute(key, value);
  }
  if (parent) parent.appendChild(node);
  return node;
}
