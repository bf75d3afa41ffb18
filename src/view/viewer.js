// tumble view: plays the run embedded in this page (the JSON of #tumble-data, written by
// src/view/data.rs, which documents its layout) with three.js.
//
// Page options after '#', joined by '&': t=SECONDS opens paused at that time; bodies=hidden
// hides the moving bodies (the tests compare a picture with and without them).
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

// tumble's world is z-up; setting this first makes cameras, lights and controls agree.
THREE.Object3D.DEFAULT_UP.set(0, 0, 1);

const data = JSON.parse(document.getElementById('tumble-data').textContent);
const options = Object.fromEntries(
  location.hash.replace(/^#/, '').split('&').filter((s) => s).map((s) => {
    const [k, v = ''] = s.split('=');
    return [decodeURIComponent(k), decodeURIComponent(v)];
  }));

/** A typed array of `Type` from base64 (little-endian, as the browsers' typed arrays are). */
function decode(base64, Type) {
  let bytes;
  if (Uint8Array.fromBase64) {
    bytes = Uint8Array.fromBase64(base64);
  } else {
    const s = atob(base64);
    bytes = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  }
  return new Type(bytes.buffer, bytes.byteOffset, bytes.byteLength / Type.BYTES_PER_ELEMENT);
}

const times = data.times;
const slots = data.slots;
const poses = decode(data.poses, Float32Array);
const POSE = 7; // x, y, z, qx, qy, qz, qw per slot per frame
const t0 = times[0];
const tEnd = times[times.length - 1];
const focus = data.focus;
const centre = new THREE.Vector3(...focus.centre);
const radius = focus.radius;

// ---- Renderer, scene, lights ----------------------------------------------------------------

const container = document.getElementById('scene');
let renderer;
try {
  renderer = new THREE.WebGLRenderer({ antialias: true });
} catch (e) {
  throw new Error('WebGL is not available in this browser (' + e.message + ')');
}
renderer.setPixelRatio(window.devicePixelRatio);
renderer.setSize(container.clientWidth, container.clientHeight);
renderer.shadowMap.enabled = true;
renderer.shadowMap.type = THREE.PCFShadowMap;
container.appendChild(renderer.domElement);

const scene = new THREE.Scene();
// The renderer's background, a light grey-blue.
scene.background = new THREE.Color('#cfd8e4');

// Hemisphere light: sky from above, a warm bounce from below (the renderer's ambient).
scene.add(new THREE.HemisphereLight('#c4cbd8', '#9a948c', 1.15));
const sun = new THREE.DirectionalLight('#ffffff', 2.1);
sun.position.copy(centre).addScaledVector(new THREE.Vector3(...data.light), 4 * radius);
sun.target.position.copy(centre);
sun.castShadow = true;
{
  // Orthographic along the light, over the focus box and the ground square as the light sees
  // them: wider than the renderer's square of 1.5 focus radii, whose edge orbiting would show.
  const c = sun.shadow.camera;
  c.position.copy(sun.position);
  c.lookAt(centre);
  c.updateMatrixWorld();
  // The corners of the focus box and of the ground square, where most shadows land.
  const half = new THREE.Vector3(...focus.half);
  const g = data.ground.half;
  let extent = 0.1 * radius;
  let depth = 8 * radius;
  for (let k = 0; k < 12; k++) {
    const p = k < 8
      ? new THREE.Vector3(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1).multiply(half).add(centre)
      : new THREE.Vector3(centre.x + (k & 1 ? g : -g), centre.y + (k & 2 ? g : -g), data.ground.z);
    p.applyMatrix4(c.matrixWorldInverse);
    extent = Math.max(extent, Math.abs(p.x), Math.abs(p.y));
    depth = Math.max(depth, -1.1 * p.z);
  }
  c.left = c.bottom = -extent;
  c.right = c.top = extent;
  c.near = 0;
  c.far = depth;
  c.updateProjectionMatrix();
  sun.shadow.mapSize.set(4096, 4096);
  sun.shadow.bias = -0.0002;
  // About two shadow-map texels along the normal keeps faces from shadowing themselves.
  sun.shadow.normalBias = (2 * 2 * extent) / 4096;
  sun.shadow.radius = 2;
}
scene.add(sun, sun.target);

/**
 * A lit material; `grid` draws the renderer's floor grid (lines `data.ground.grid` apart on
 * the world's x-y plane) on faces looking up, for the ground and fixed bodies.
 */
function material(grid, side) {
  const m = new THREE.MeshStandardMaterial({ roughness: 0.62, metalness: 0.0, side });
  if (!grid) return m;
  m.onBeforeCompile = (shader) => {
    shader.uniforms.gridSpacing = { value: data.ground.grid };
    shader.vertexShader = shader.vertexShader
      .replace('#include <common>', '#include <common>\nvarying vec3 vGridWorld;')
      .replace('#include <project_vertex>', `#include <project_vertex>
        vec4 gridWorld = vec4(transformed, 1.0);
        #ifdef USE_INSTANCING
          gridWorld = instanceMatrix * gridWorld;
        #endif
        vGridWorld = (modelMatrix * gridWorld).xyz;`);
    shader.fragmentShader = shader.fragmentShader
      .replace('#include <common>',
        '#include <common>\nvarying vec3 vGridWorld;\nuniform float gridSpacing;')
      .replace('#include <color_fragment>', `#include <color_fragment>
        {
          // The face's own normal from the screen derivatives: flat faces only, any mesh.
          vec3 faceNormal = normalize(cross(dFdx(vGridWorld), dFdy(vGridWorld)));
          vec2 c = vGridWorld.xy / gridSpacing;
          vec2 w = max(fwidth(c), vec2(1e-6));
          vec2 d = abs(fract(c - 0.5) - 0.5) / w;
          float line = 1.0 - min(min(d.x, d.y), 1.0);
          // Fade the lines where they crowd below a pixel apart (far away), as a grey.
          float crowd = clamp(max(w.x, w.y) * 3.0 - 0.5, 0.0, 1.0);
          line = mix(line, 0.25, crowd);
          if (abs(faceNormal.z) > 0.95) diffuseColor.rgb *= mix(1.0, 0.62, line);
        }`);
  };
  return m;
}

// ---- Bodies ---------------------------------------------------------------------------------

const geometries = data.meshes.map((m) => {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(decode(m.positions, Float32Array), 3));
  g.setAttribute('normal', new THREE.BufferAttribute(decode(m.normals, Float32Array), 3));
  g.setIndex(new THREE.BufferAttribute(decode(m.indices, Uint32Array), 1));
  return g;
});

// One instanced mesh per (mesh, fixed or moving): a thousand equal cubes are one draw call.
const groups = new Map();
for (const body of data.bodies) {
  const key = body.mesh + (body.fixed ? 'f' : 'm');
  if (!groups.has(key)) groups.set(key, { mesh: body.mesh, fixed: body.fixed, bodies: [] });
  groups.get(key).bodies.push(body);
}
const movingMaterial = material(false, THREE.FrontSide);
// Fixed bodies may be open (a plane, a hollow fixture seen from inside): both sides are drawn.
const fixedMaterial = material(true, THREE.DoubleSide);
// Only their back faces go into the shadow map (as single-sided ones do by default): a front
// face there would shadow itself, darkening a floor's whole top with acne.
fixedMaterial.shadowSide = THREE.BackSide;
const placements = new Array(slots); // slot -> [instanced mesh, index]
const windows = new Array(slots); // slot -> [appears, vanishes] (s), for bodies that come and go
const movingMeshes = [];
const matrix = new THREE.Matrix4();
const position = new THREE.Vector3();
const quaternion = new THREE.Quaternion();
const one = new THREE.Vector3(1, 1, 1);
const none = new THREE.Vector3(0, 0, 0);
const colour = new THREE.Color();
for (const g of groups.values()) {
  const mesh = new THREE.InstancedMesh(geometries[g.mesh], g.fixed ? fixedMaterial : movingMaterial,
    g.bodies.length);
  mesh.castShadow = true;
  mesh.receiveShadow = true;
  // The instances move every frame; their bounds would go stale, so never cull.
  mesh.frustumCulled = false;
  g.bodies.forEach((body, i) => {
    mesh.setColorAt(i, colour.set(body.colour));
    if (body.fixed) {
      position.fromArray(body.position);
      quaternion.fromArray(body.orientation);
      mesh.setMatrixAt(i, matrix.compose(position, quaternion, one));
    } else {
      placements[body.slot] = [mesh, i];
      // A body poured in or taken out is drawn only while it is in the world.
      if (body.present) {
        windows[body.slot] = [body.present[0] ?? -Infinity, body.present[1] ?? Infinity];
      }
    }
  });
  if (!g.fixed) {
    mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    movingMeshes.push(mesh);
    mesh.visible = options.bodies !== 'hidden';
  }
  scene.add(mesh);
}

// The ground: the renderer's square under everything, with the grid.
{
  const half = data.ground.half;
  const ground = new THREE.Mesh(new THREE.PlaneGeometry(2 * half, 2 * half), material(true, THREE.FrontSide));
  ground.material.color.set('#e8e6e0');
  ground.position.set(centre.x, centre.y, data.ground.z);
  ground.receiveShadow = true;
  scene.add(ground);
}

// ---- Camera and controls --------------------------------------------------------------------

const camera = new THREE.PerspectiveCamera(data.camera.fov, 1, 0.01, 100);
const controls = new OrbitControls(camera, renderer.domElement);
controls.enableDamping = true;
controls.dampingFactor = 0.12;
controls.zoomToCursor = true;

/**
 * The distance at which every corner of the focus box fits the field of view looking along
 * -from at its centre: `Focus::fitting_distance` of src/render/camera.rs (keep in sync).
 */
function fittingDistance(aspect) {
  const ty = Math.tan(THREE.MathUtils.degToRad(0.5 * data.camera.fov));
  const tx = ty * aspect;
  const half = new THREE.Vector3(...focus.half);
  if (half.lengthSq() === 0) return radius / Math.sin(Math.atan(Math.min(tx, ty)));
  const back = new THREE.Vector3(...data.camera.from).normalize();
  const right = new THREE.Vector3(0, 0, 1).cross(back);
  if (right.lengthSq() < 1e-12) right.set(1, 0, 0);
  right.normalize();
  const up = back.clone().cross(right);
  let d = 0;
  for (let k = 0; k < 8; k++) {
    const p = new THREE.Vector3(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1).multiply(half);
    const near = p.dot(back);
    d = Math.max(d, near + Math.abs(p.dot(right)) / tx, near + Math.abs(p.dot(up)) / ty);
  }
  return d;
}

/** Near and far planes around what the camera looks at, so zooming far in or out keeps depth. */
function fitClipping() {
  const d = camera.position.distanceTo(controls.target);
  camera.near = Math.max(1e-4, 0.01 * Math.min(d, radius));
  camera.far = 4 * (d + Math.max(focus.scene_radius, data.ground.half * 1.5));
  camera.updateProjectionMatrix();
}

/** The renderer's automatic camera for the window's shape. */
function resetView() {
  const distance = data.camera.margin * fittingDistance(camera.aspect);
  camera.position.copy(centre).addScaledVector(
    new THREE.Vector3(...data.camera.from).normalize(), distance);
  controls.target.copy(centre);
  controls.update();
  fitClipping();
  dirty = true;
}

function resize() {
  camera.aspect = container.clientWidth / Math.max(1, container.clientHeight);
  renderer.setSize(container.clientWidth, container.clientHeight);
  fitClipping();
  dirty = true;
}

let dirty = true;
controls.addEventListener('change', () => {
  fitClipping();
  dirty = true;
});
window.addEventListener('resize', resize);
camera.aspect = container.clientWidth / Math.max(1, container.clientHeight);
resetView();

// ---- Time -----------------------------------------------------------------------------------

/** The last kept frame at or before t. */
function frameAt(t) {
  let lo = 0;
  let hi = times.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (times[mid] <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Places every moving body at time t: positions lerped, orientations slerped between frames. */
function pose(t) {
  const k = frameAt(t);
  const k1 = Math.min(k + 1, times.length - 1);
  const f = k1 > k ? Math.min(1, Math.max(0, (t - times[k]) / (times[k1] - times[k]))) : 0;
  const q = new Float32Array(4);
  for (let s = 0; s < slots; s++) {
    const a = (k * slots + s) * POSE;
    const b = (k1 * slots + s) * POSE;
    position.set(
      poses[a] + (poses[b] - poses[a]) * f,
      poses[a + 1] + (poses[b + 1] - poses[a + 1]) * f,
      poses[a + 2] + (poses[b + 2] - poses[a + 2]) * f);
    // slerpFlat takes the short way round (a quaternion and its negative are one turn).
    THREE.Quaternion.slerpFlat(q, 0, poses, a + 3, poses, b + 3, f);
    quaternion.fromArray(q);
    const [mesh, i] = placements[s];
    const span = windows[s];
    const shown = !span || (span[0] <= t && t < span[1]);
    mesh.setMatrixAt(i, matrix.compose(position, quaternion, shown ? one : none));
  }
  for (const mesh of movingMeshes) mesh.instanceMatrix.needsUpdate = true;
}

const playButton = document.getElementById('play');
const slider = document.getElementById('slider');
const timeLabel = document.getElementById('time');
const frameLabel = document.getElementById('frame');
const speedSelect = document.getElementById('speed');
const loopBox = document.getElementById('loop');
slider.min = t0;
slider.max = tEnd;
// Decimals enough to tell frames apart.
const period = times.length > 1 ? (tEnd - t0) / (times.length - 1) : 1;
const decimals = Math.min(6, Math.max(2, Math.ceil(-Math.log10(period)) + 1));

let t = t0;
let playing = !('t' in options);
if ('t' in options) t = Math.min(tEnd, Math.max(t0, Number(options.t) || t0));

function setTime(value) {
  t = value;
  pose(t);
  slider.value = t;
  timeLabel.textContent = `${t.toFixed(decimals)} / ${tEnd.toFixed(decimals)} s`;
  frameLabel.textContent = `frame ${frameAt(t + 1e-9 * period) + 1} of ${times.length}`;
  dirty = true;
}

function setPlaying(on) {
  // Play from the start again after the end of a run that does not loop.
  if (on && t >= tEnd && !loopBox.checked) setTime(t0);
  playing = on;
  playButton.textContent = on ? '❚❚' : '▶';
}

function step(frames) {
  setPlaying(false);
  const k = frameAt(t + 1e-9 * period);
  setTime(times[Math.min(times.length - 1, Math.max(0, k + frames))]);
}

playButton.addEventListener('click', () => setPlaying(!playing));
slider.addEventListener('input', () => setTime(Number(slider.value)));
document.getElementById('reset').addEventListener('click', resetView);
const keys = {
  ' ': () => setPlaying(!playing),
  ArrowRight: () => step(1),
  ArrowLeft: () => step(-1),
  Home: () => step(-times.length),
  End: () => step(times.length),
  r: resetView,
  R: resetView,
};
window.addEventListener('keydown', (e) => {
  const action = keys[e.key];
  if (!action || e.target instanceof HTMLSelectElement || e.ctrlKey || e.metaKey || e.altKey) {
    return;
  }
  // The keys act on the whole page, also after a click on the bar: otherwise space would also
  // press the focused button, and the arrows move the focused slider a second time.
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLButtonElement) {
    e.target.blur();
  }
  e.preventDefault();
  action();
});

const info = document.getElementById('info');
const moving = data.bodies.filter((b) => !b.fixed).length;
info.innerHTML = '<b></b> <span></span>';
info.firstChild.textContent = data.title;
info.lastChild.textContent = ` · ${data.bodies.length} bodies (${moving} moving) · `
  + `${times.length} frames · ${(tEnd - t0).toFixed(2)} s`;

// ---- The loop -------------------------------------------------------------------------------

setTime(t);
setPlaying(playing);
renderer.render(scene, camera);
dirty = false;
// Marks the page as drawn (the tests wait for it).
document.body.dataset.ready = 'true';

let last = performance.now();
function tick(now) {
  // Clamped, so that a hidden tab coming back does not jump far ahead.
  const dt = Math.min(0.25, Math.max(0, (now - last) / 1000));
  last = now;
  if (playing && tEnd > t0) {
    let next = t + dt * Number(speedSelect.value);
    if (next > tEnd) {
      if (loopBox.checked) {
        next = t0 + ((next - t0) % (tEnd - t0));
      } else {
        next = tEnd;
        setPlaying(false);
      }
    }
    setTime(next);
  }
  if (controls.update()) dirty = true;
  if (dirty) {
    renderer.render(scene, camera);
    dirty = false;
  }
  requestAnimationFrame(tick);
}
requestAnimationFrame(tick);
