// trackdb's map page: live positions from /api/stream, tracks, fences,
// fence events and space-time queries over /api/*. No framework: Leaflet
// (Debian's libjs-leaflet) and a canvas layer that draws every entity,
// in clusters where they are dense, so 100k entities redraw in one frame.
'use strict';

const stats = {  // read by the browser test and the page bench
  entities: 0, snapshots: 0, messages: 0, updates: 0, lastLagMs: 0,
  maxLagMs: 0, lagsMs: [], drawsMs: [], firstPaintMs: null, fenceEvents: 0,
};
window.trackdbStats = stats;

// No zoom animation: a fit that starts while another runs leaves Leaflet's
// vector layers clipped to the earlier view.
const map = L.map('map', {zoomAnimation: false, worldCopyJump: true})
    .setView([20, 0], 2);
L.control.scale().addTo(map);

// --- Live positions: id -> [lon, lat, time_ms], drawn on one canvas. ---

const positions = new Map();

const LiveLayer = L.Layer.extend({
  onAdd(m) {
    this._canvas = L.DomUtil.create('canvas', 'live-layer');
    this._canvas.style.position = 'absolute';
    m.getPanes().overlayPane.appendChild(this._canvas);
    m.on('moveend zoomend resize', this.redraw, this);
    this.redraw();
  },
  onRemove(m) {
    L.DomUtil.remove(this._canvas);
    m.off('moveend zoomend resize', this.redraw, this);
  },
  // Draws at most once a frame, however many messages came.
  redraw() {
    if (this._pending) return;
    this._pending = true;
    requestAnimationFrame(() => { this._pending = false; this._draw(); });
  },
  _draw() {
    const started = performance.now();
    const size = map.getSize();
    const c = this._canvas;
    c.width = size.x;
    c.height = size.y;
    L.DomUtil.setPosition(c, map.containerPointToLayerPoint([0, 0]));
    const ctx = c.getContext('2d');
    const zoom = map.getZoom();
    const origin = map.getPixelOrigin().add(map.containerPointToLayerPoint([0, 0]));
    const scale = 256 * Math.pow(2, zoom);
    const cell = 40;
    const bins = new Map();
    const points = [];
    for (const [id, p] of positions) {
      const x = (p[0] + 180) / 360 * scale - origin.x;
      const s = Math.sin(p[1] * Math.PI / 180);
      const y = (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * scale - origin.y;
      if (x < -cell || y < -cell || x > size.x + cell || y > size.y + cell) continue;
      points.push([x, y, id]);
      const key = Math.floor(x / cell) * 65536 + Math.floor(y / cell);
      const b = bins.get(key);
      if (b) { b[0] += x; b[1] += y; b[2]++; } else bins.set(key, [x, y, 1]);
    }
    this._points = points;
    ctx.fillStyle = '#e63946';
    if (points.length <= 3000) {
      for (const [x, y] of points) {
        ctx.beginPath(); ctx.arc(x, y, 4, 0, 2 * Math.PI); ctx.fill();
      }
    } else {
      drawClusters(ctx, bins);
    }
    noteDrawn();
    stats.drawsMs.push(performance.now() - started);
    if (stats.drawsMs.length > 1000) stats.drawsMs.shift();
    if (stats.firstPaintMs === null && stats.snapshots > 0) {
      stats.firstPaintMs = performance.now();
    }
  },
  // The entity drawn nearest a container point, within 8 px.
  nearest(pt) {
    let best = null, bestD = 64;
    for (const [x, y, id] of this._points || []) {
      const d = (x - pt.x) ** 2 + (y - pt.y) ** 2;
      if (d < bestD) { bestD = d; best = id; }
    }
    return best;
  },
});

function drawClusters(ctx, bins) {
  ctx.font = '11px sans-serif';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  for (const [sx, sy, n] of bins.values()) {
    const x = sx / n, y = sy / n;
    const r = n === 1 ? 4 : 8 + 3 * Math.log10(n);
    ctx.fillStyle = n === 1 ? '#e63946' : 'rgba(230,57,70,0.75)';
    ctx.beginPath(); ctx.arc(x, y, r, 0, 2 * Math.PI); ctx.fill();
    if (n > 1) { ctx.fillStyle = '#fff'; ctx.fillText(String(n), x, y); }
  }
}

const live = new LiveLayer().addTo(map);

function listEntities() {
  stats.entities = positions.size;
  document.getElementById('entity-count').textContent = positions.size;
  // The first 200 by name: a list to click, not the whole fleet.
  const ids = Array.from(positions.keys()).sort().slice(0, 200);
  const ul = document.getElementById('entities');
  ul.replaceChildren(...ids.map((id) => {
    const li = document.createElement('li');
    li.className = 'entity';
    li.textContent = id;
    li.dataset.entity = id;
    li.onclick = () => showEntity(id);
    return li;
  }));
}
let listTimer = null;
function listSoon() {
  if (listTimer === null) listTimer = setTimeout(() => { listTimer = null; listEntities(); }, 250);
}

// Update lag: from the server sending a message to the frame that shows
// it drawn (the oldest message a frame shows counts).
let oldestUndrawnMs = null;
function noteLag(sentMs) {
  if (oldestUndrawnMs === null) oldestUndrawnMs = sentMs;
}
function noteDrawn() {
  if (oldestUndrawnMs === null) return;
  const lag = Date.now() - oldestUndrawnMs;
  oldestUndrawnMs = null;
  stats.lastLagMs = lag;
  stats.maxLagMs = Math.max(stats.maxLagMs, lag);
  stats.lagsMs.push(lag);
  if (stats.lagsMs.length > 1000) stats.lagsMs.shift();
}

// --- The collection's stream ---

let source = null;
let collection = '';

function follow(name) {
  if (source) source.close();
  collection = name;
  positions.clear();
  fenceLayer.clearLayers();
  document.getElementById('events').replaceChildren();
  live.redraw();
  listEntities();
  if (!name) return;
  loadFences();
  source = new EventSource('/api/stream?collection=' + encodeURIComponent(name));
  source.addEventListener('snapshot', (e) => {
    const m = JSON.parse(e.data);
    positions.clear();
    for (const [id, lon, lat, t] of m.rows) positions.set(id, [lon, lat, t]);
    stats.snapshots++;
    if (stats.snapshots === 1 && m.rows.length) fitTo(m.rows);
    live.redraw();
    listSoon();
    setStatus();
  });
  source.addEventListener('positions', (e) => {
    const m = JSON.parse(e.data);
    let added = false;
    for (const [id, lon, lat, t] of m.set) {
      if (!positions.has(id)) added = true;
      positions.set(id, [lon, lat, t]);
    }
    for (const id of m.erase) { positions.delete(id); added = true; }
    stats.messages++;
    stats.updates += m.set.length + m.erase.length;
    if (m.sent_ms) noteLag(m.sent_ms);
    live.redraw();
    if (added) listSoon();
    setStatus();
  });
  source.addEventListener('fence', (e) => addEvent(JSON.parse(e.data)));
  source.onerror = () => setStatus('reconnecting…');
}

function setStatus(text) {
  document.getElementById('status').textContent = text ||
      `${positions.size} entities · ${stats.updates} updates · lag ${stats.lastLagMs} ms`;
}

function fitTo(rows) {
  let s = 90, w = 180, n = -90, e = -180;
  for (const r of rows) {
    w = Math.min(w, r[1]); e = Math.max(e, r[1]);
    s = Math.min(s, r[2]); n = Math.max(n, r[2]);
  }
  map.fitBounds([[s, w], [n, e]], {padding: [20, 20], maxZoom: 16});
}

// --- Fences and their events ---

const fenceLayer = L.layerGroup().addTo(map);
const fenceShapes = new Map();

// Names and ids are the users' bytes: Leaflet writes a string given to a
// tooltip or popup as HTML, so they go in as text nodes, never as markup.
function textNode(text) {
  const span = document.createElement('span');
  span.textContent = text;
  return span;
}

async function getJson(url) {
  const r = await fetch(url, {cache: 'no-store'});
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function fenceShape(f) {
  const opts = {className: 'fence', color: '#457b9d', weight: 2, fillOpacity: 0.1};
  if (f.circle) {
    const c = f.circle.center;
    return L.circle([c.latitude || 0, c.longitude || 0],
                    Object.assign({radius: f.circle.radiusM}, opts));
  }
  if (f.rect) {
    const sw = f.rect.southWest, ne = f.rect.northEast;
    return L.rectangle([[sw.latitude || 0, sw.longitude || 0],
                        [ne.latitude || 0, ne.longitude || 0]], opts);
  }
  if (f.polygon) {
    return L.polygon(f.polygon.vertices.map((v) => [v.latitude || 0, v.longitude || 0]), opts);
  }
  return null;  // a roaming fence moves with its entity: listed, not drawn
}

async function loadFences() {
  const body = await getJson('/api/fences?collection=' + encodeURIComponent(collection));
  fenceShapes.clear();
  for (const f of body.fences) {
    const shape = fenceShape(f);
    if (!shape) continue;
    shape.bindTooltip(textNode(f.name));
    shape.addTo(fenceLayer);
    shape.getElement().dataset.fence = f.name;
    fenceShapes.set(f.name, shape);
  }
  document.getElementById('fence-count').textContent = body.fences.length;
}

function addEvent(ev) {
  stats.fenceEvents++;
  const li = document.createElement('li');
  const kind = String(ev.kind || '').replace('FENCE_EVENT_', '').toLowerCase();
  const point = ev.point || {};
  li.className = 'event ' + kind;
  li.dataset.fence = ev.fence;
  li.dataset.entity = point.entityId;
  li.textContent = `${kind.toUpperCase()} ${ev.fence} ${point.entityId} ` +
      new Date(Number(point.locTimeMs || 0)).toISOString();
  li.onclick = () => showEntity(point.entityId);
  const ul = document.getElementById('events');
  ul.prepend(li);
  while (ul.children.length > 200) ul.lastChild.remove();
  const shape = fenceShapes.get(ev.fence);
  if (shape) {
    shape.setStyle({color: '#e76f51'});
    setTimeout(() => shape.setStyle({color: '#457b9d'}), 1500);
  }
}

// --- An entity's track, stays and trips ---

const trackLayer = L.layerGroup().addTo(map);
let trackLine = null;
window.trackdbTrack = () => trackLine ? trackLine.getLatLngs().length : 0;

function msOf(input) {
  return input.value ? String(new Date(input.value).getTime()) : '';
}

function showEntity(id) {
  document.getElementById('track-entity').value = id;
  showTrack();
}

async function showTrack() {
  const id = document.getElementById('track-entity').value;
  const q = new URLSearchParams({collection, entity: id});
  const from = msOf(document.getElementById('track-from'));
  const to = msOf(document.getElementById('track-to'));
  if (from) q.set('from', from);
  if (to) q.set('to', to);
  const info = document.getElementById('track-info');
  let body;
  try {
    body = await getJson('/api/track?' + q);
  } catch (err) {
    info.textContent = err.message;
    return;
  }
  trackLayer.clearLayers();
  trackLine = null;
  for (const f of body.features) {
    const c = f.geometry.coordinates;
    if (f.properties.kind === 'track') {
      trackLine = L.polyline(c.map(([lon, lat]) => [lat, lon]),
                             {className: 'track', color: '#1d3557', weight: 3});
      trackLine.addTo(trackLayer);
      if (c.length) map.fitBounds(trackLine.getBounds(), {padding: [30, 30], maxZoom: 17});
    } else if (f.properties.kind === 'stay') {
      L.circleMarker([c[1], c[0]], {className: 'stay', radius: 7, color: '#2a9d8f'})
          .bindTooltip(`stay ${new Date(f.properties.start_ms).toISOString()} – ` +
                       `${new Date(f.properties.end_ms).toISOString()}`)
          .addTo(trackLayer);
    }
  }
  const a = body.analysis;
  const track = body.features.find((f) => f.properties.kind === 'track');
  info.dataset.fixes = a.fixes;
  info.dataset.shown = track ? track.properties.shown : 0;
  info.textContent = `${a.fixes} fixes (${info.dataset.shown} drawn), ` +
      `${(a.distance_m / 1000).toFixed(2)} km, ` +
      `${body.features.length - (track ? 1 : 0)} stays, ${a.trips.length} trips`;
}

document.getElementById('track-form').onsubmit = (e) => { e.preventDefault(); showTrack(); };

map.on('click', (e) => {
  if (drawing) return;
  const id = live.nearest(e.containerPoint);
  if (id) {
    const p = positions.get(id);
    L.popup().setLatLng([p[1], p[0]])
        .setContent(textNode(`${id} ${new Date(p[2]).toISOString()}`)).openOn(map);
    showEntity(id);
  }
});

// --- Who was in an area during a time ---

let drawing = null;  // 'box' | 'circle' while the user draws
let drawn = null;

function startDrawing(kind) {
  drawing = kind;
  document.body.classList.add('drawing');
  map.dragging.disable();
}

map.on('mousedown', (e) => {
  if (!drawing) return;
  const start = e.latlng;
  if (drawn) drawn.remove();
  drawn = drawing === 'box' ? L.rectangle([start, start], {className: 'query'})
                            : L.circle(start, {radius: 1, className: 'query'});
  drawn.addTo(map);
  const move = (m) => {
    if (drawing === 'box') drawn.setBounds([start, m.latlng]);
    else drawn.setRadius(map.distance(start, m.latlng));
  };
  map.on('mousemove', move);
  map.once('mouseup', () => {
    map.off('mousemove', move);
    map.dragging.enable();
    document.body.classList.remove('drawing');
    drawing = null;
    searchArea(drawn);
  });
});

document.getElementById('draw-box').onclick = () => startDrawing('box');
document.getElementById('draw-circle').onclick = () => startDrawing('circle');

async function searchArea(shape) {
  const q = new URLSearchParams({collection});
  if (shape.getRadius) {
    const c = shape.getLatLng();
    q.set('circle', `${c.lng},${c.lat},${shape.getRadius()}`);
  } else {
    const b = shape.getBounds();
    q.set('bbox', `${b.getWest()},${b.getSouth()},${b.getEast()},${b.getNorth()}`);
  }
  const from = msOf(document.getElementById('search-from'));
  const to = msOf(document.getElementById('search-to'));
  if (from) q.set('from', from);
  if (to) q.set('to', to);
  return showVisits('/api/search?' + q);
}
window.trackdbSearch = (query) => showVisits('/api/search?collection=' +
    encodeURIComponent(collection) + '&' + query);

async function showVisits(url) {
  const ul = document.getElementById('search-results');
  let body;
  try {
    body = await getJson(url);
  } catch (err) {
    ul.replaceChildren(Object.assign(document.createElement('li'), {textContent: err.message}));
    return;
  }
  ul.replaceChildren(...body.visits.map((v) => {
    const li = document.createElement('li');
    li.className = 'visit';
    li.dataset.entity = v.entity;
    li.textContent = `${v.entity}: ${v.fixes} fixes, ` +
        `${new Date(v.first.time_ms).toISOString()} – ${new Date(v.last.time_ms).toISOString()}`;
    li.onclick = () => showEntity(v.entity);
    return li;
  }));
  if (!body.visits.length) ul.textContent = 'nobody';
}

// --- Base map, or a graticule ---

const graticule = L.layerGroup();

function drawGraticule() {
  graticule.clearLayers();
  const b = map.getBounds();
  const span = Math.max(b.getEast() - b.getWest(), b.getNorth() - b.getSouth());
  const steps = [90, 45, 30, 10, 5, 2, 1, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001];
  const step = steps.find((s) => span / s >= 4) || steps[steps.length - 1];
  const opts = {className: 'graticule', interactive: false, weight: 0.5, color: '#8aa'};
  const west = Math.max(-180, Math.floor(b.getWest() / step) * step);
  const east = Math.min(180, b.getEast());
  const south = Math.max(-85, Math.floor(b.getSouth() / step) * step);
  const north = Math.min(85, b.getNorth());
  for (let x = west; x <= east; x += step) {
    L.polyline([[south, x], [north, x]], opts).addTo(graticule);
  }
  for (let y = south; y <= north; y += step) {
    L.polyline([[y, west], [y, east]], opts).addTo(graticule);
  }
}

async function start() {
  // The map was made before the page's layout settled: without this,
  // vector layers are clipped to the size it had then.
  map.invalidateSize();
  window.addEventListener('load', () => map.invalidateSize());
  const config = await getJson('/api/config');
  if (config.tile_url) {
    L.tileLayer(config.tile_url, {maxZoom: 19}).addTo(map);
  } else {
    graticule.addTo(map);
    map.on('moveend', drawGraticule);
    drawGraticule();
  }
  const select = document.getElementById('collection');
  const {collections} = await getJson('/api/collections');
  const wanted = new URLSearchParams(location.search).get('collection');
  const names = collections.map((c) => c.name);
  if (wanted && !names.includes(wanted)) names.unshift(wanted);
  select.replaceChildren(...names.map((n) => Object.assign(
      document.createElement('option'), {value: n, textContent: n})));
  select.value = wanted || names[0] || '';
  select.onchange = () => follow(select.value);
  follow(select.value);
}

start().catch((err) => setStatus(err.message));
