#!/usr/bin/env python3
"""funnel.toml 6 s over lattice seeds, jammed_islands = "step" against "events": the outlet
count, the energy dissipated, the pile's height profile at 6 s, wall time and counts
(docs/measurements.md, Jammed islands).

    benches/jammed_seeds.py [BINARY] [SEEDS, e.g. 1,2,3,4,5] [WORK_DIR]
"""
import csv, json, os, re, statistics, subprocess, sys, tempfile, time
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = sys.argv[1] if len(sys.argv) > 1 else root + '/target/release/tumble'
seeds = [int(s) for s in (sys.argv[2] if len(sys.argv) > 2 else '1,2,3,4,5').split(',')]
out = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix='jammed-seeds-')
os.makedirs(out, exist_ok=True)
base = open(root + '/scenes/funnel.toml').read()
rows = []
def energy(frames, t):
    e = 0.0
    for r in frames[t]:
        v2 = r['vx']**2 + r['vy']**2 + r['vz']**2
        w2 = r['wx']**2 + r['wy']**2 + r['wz']**2
        e += 0.5 * v2 + 0.5 * w2 / 6.0 + 9.81 * r['z']
    return e
for seed in seeds:
    for mode in ['step', 'events']:
        text = re.sub(r'^seed = \d+', f'seed = {seed}', base, flags=re.M)
        text = text.replace('collision_epsilon = 0.001', f'collision_epsilon = 0.001\njammed_islands = "{mode}"', 1)
        scene = f'{out}/funnel-s{seed}-{mode}.toml'
        open(scene, 'w').write(text)
        d = f'{out}/s{seed}-{mode}'
        t0 = time.time()
        subprocess.run([binary, 'run', scene, '--out', d, '--backend', 'cpu'], check=True, capture_output=True)
        wall = time.time() - t0
        frames = {}
        for r in csv.DictReader(open(d + '/frames.csv')):
            if not r['body'].startswith('cube'):
                continue
            t = round(float(r['t']), 4)
            frames.setdefault(t, []).append({k: float(r[k]) for k in ['x','y','z','vx','vy','vz','wx','wy','wz']})
        ts = sorted(frames)
        end = frames[ts[-1]]
        outlet = sum(1 for r in end if r['z'] < 8.0)
        diss = energy(frames, ts[0]) - energy(frames, ts[-1])
        prof = []
        for k in range(0, 10, 2):
            zs = sorted((r['z'] for r in end if r['z'] >= 8.0 and k <= max(abs(r['x']), abs(r['y'])) < k + 2), reverse=True)
            prof.append(sum(zs[:5]) / max(1, len(zs[:5])) if zs else float('nan'))
        s = json.load(open(d + '/summary.json'))
        c = s['counts']
        rows.append((seed, mode, wall, outlet, diss, prof, c['collisions'], c['step_collisions'], c['island_steps'], s['max_penetration']))
        print(f"seed {seed} {mode:6s} wall {wall:6.1f} s  outlet {outlet:3d}  dissipated {diss:9.1f} J  "
              f"profile {' '.join('%.2f' % p for p in prof)}  collisions {c['collisions']} step_collisions {c['step_collisions']} island_steps {c['island_steps']} pen {s['max_penetration']:.2e}", flush=True)
json.dump(rows, open(out + '/rows.json', 'w'))
for mode in ['step', 'events']:
    r = [x for x in rows if x[1] == mode]
    if len(r) < 2:
        continue
    spread = lambda v: '%.2f ± %.2f' % (statistics.mean(v), statistics.stdev(v))
    profile = [spread(p) for p in zip(*[x[5] for x in r])]
    print(f"{mode:6s} outlet {spread([x[3] for x in r])}  dissipated (J) {spread([x[4] for x in r])}  "
          f"profile {' '.join(profile)}  deepest {max(x[9] for x in r):.2e} m")
