import os, sys, numpy as np, collections
R=os.environ.get('PAN', '../shared/eval/pan13-train')
z=np.load(sys.argv[1]); ids,scs,so=z['ids'],z['scs'],z['owner']; half=sys.argv[2]
sn=sorted(os.listdir(R+'/susp')); tn=sorted(os.listdir(R+'/src'))
si={n[:-4]:i for i,n in enumerate(sn)}; ti={n[:-4]:i for i,n in enumerate(tn)}
truth=collections.defaultdict(list)
for c in sorted(os.listdir(R)):
    if not c[:2].isdigit() or c.startswith('01'): continue
    for n in os.listdir(os.path.join(R,c)):
        if not n.endswith('.xml'): continue
        a,b=n[:-4].split('-source-')
        if half!='all' and (int(a[-5:])%2==1)!=(half=='odd'): continue
        truth[c[3:7]].append((si[a],ti['source-'+b]))
keep=set(i for i,n in enumerate(sn) if half=='all' or (int(n[-9:-4])%2==1)==(half=='odd'))
for k in [int(x) for x in sys.argv[3].split(',')]:
  for thr in [float(x) for x in sys.argv[4].split(',')]:
    sel=set()
    for r in range(len(so)):
        if so[r] not in keep: continue
        for j,s in zip(ids[r,:k],scs[r,:k]):
            if s>=thr: sel.add((so[r],j))
    print(f"k={k} thr={thr}", ' '.join(f"{c} {sum(p in sel for p in v)/len(v):.3f}" for c,v in sorted(truth.items())), f"cand/doc {len(sel)/len(keep):.1f}")
