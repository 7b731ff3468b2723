import os, re, sys, collections, math, numpy as np, scipy.sparse as sp
R=os.environ.get('PAN', '../shared/eval/pan13-train')
tok=re.compile(r"\w+")
def chunks(text, minw=20, maxw=100):
    out=[]; cur=[]
    for para in re.split(r"\n\s*\n", text):
        w=tok.findall(para.lower())
        cur+=w
        if len(cur)>=minw:
            out.append(cur); cur=[]
    if cur:
        if out: out[-1]+=cur
        else: out.append(cur)
    res=[]
    for c in out:
        for i in range(0,len(c),maxw): res.append(c[i:i+maxw])
    return res
STOP=set()  # no stopword list: idf does the work
names={'susp':sorted(os.listdir(R+'/susp')),'src':sorted(os.listdir(R+'/src'))}
vocab={}; rows={'susp':[], 'src':[]}; owner={'susp':[], 'src':[]}
df=collections.Counter()
docterms={}
for side in ('susp','src'):
    for di,n in enumerate(names[side]):
        cs=chunks(open(f'{R}/{side}/{n}',encoding='utf-8',errors='replace').read())
        seen=set()
        for c in cs:
            cnt=collections.Counter(w for w in c if len(w)>2 and w not in STOP)
            rows[side].append(cnt); owner[side].append(di); seen.update(cnt)
        df.update(seen)
N=len(names['susp'])+len(names['src'])
for w in df: vocab[w]=len(vocab)
def mat(side):
    ind=[];dat=[];ptr=[0]
    for cnt in rows[side]:
        for w,f in cnt.items():
            ind.append(vocab[w]); dat.append((1+math.log(f))*math.log(N/df[w]))
        ptr.append(len(ind))
    m=sp.csr_matrix((np.array(dat,dtype=np.float32),ind,ptr),shape=(len(rows[side]),len(vocab)))
    norms=np.sqrt(m.multiply(m).sum(1)).A1; norms[norms==0]=1
    return sp.diags(1/norms).dot(m).tocsr()
S=mat('susp'); T=mat('src').T.tocsc()
so=np.array(owner['susp']); to=np.array(owner['src'])
print('chunks', S.shape, T.shape, file=sys.stderr)
# best chunk cosine per (susp doc, src doc): keep top 200 src docs per susp doc
nsrc=len(names['src'])
best={}
B=2000
for a in range(0,S.shape[0],B):
    M=(S[a:a+B]@T).toarray()
    # reduce columns to src docs: max over chunks of each src doc
    order=np.argsort(to,kind='stable')
    bounds=np.searchsorted(to[order],np.arange(nsrc+1))
    Mo=M[:,order]
    D=np.maximum.reduceat(Mo,bounds[:-1],axis=1)
    for r in range(D.shape[0]):
        sd=so[a+r]
        cur=best.get(sd)
        best[sd]=D[r] if cur is None else np.maximum(cur,D[r])
    print(a, file=sys.stderr)
np.save('./best.npy', np.stack([best[i] for i in range(len(names['susp']))]))
