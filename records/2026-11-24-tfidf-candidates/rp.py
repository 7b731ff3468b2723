exec(open('chunkcos.py').read().split("S=mat('susp')")[0])
D=int(sys.argv[1]); K=10; B=1000; nsrc=len(names['src'])
S=mat('susp'); T=mat('src')
rng=np.random.default_rng(1123456)
G=rng.standard_normal((len(vocab),D)).astype(np.float32)
Ss=np.sign(S@G).astype(np.float32); Ts=np.sign(T@G).astype(np.float32).T.copy()
so=np.array(owner['susp']); to=np.array(owner['src'])
bounds=np.searchsorted(to,np.arange(nsrc+1))
top=[]
for a in range(0,Ss.shape[0],B):
    M=Ss[a:a+B]@Ts   # agreement: D - 2*hamming
    Dm=np.maximum.reduceat(M,bounds[:-1],axis=1)
    idx=np.argpartition(-Dm,K,axis=1)[:,:K]
    sc=np.take_along_axis(Dm,idx,1); o=np.argsort(-sc,axis=1)
    top.append((np.take_along_axis(idx,o,1),np.take_along_axis(sc,o,1)))
ids=np.concatenate([t[0] for t in top]); scs=np.concatenate([t[1] for t in top])
np.savez(f'./rp{D}.npz', ids=ids, scs=scs, owner=so)
