exec(open('chunkcos.py').read().split("# best chunk")[0])
K=20; B=2000; nsrc=len(names["src"])
top=[]  # per susp chunk: (src doc ids, scores) top K docs
for a in range(0,S.shape[0],B):
    M=(S[a:a+B]@T).toarray()
    bounds=np.searchsorted(to,np.arange(nsrc+1))
    D=np.maximum.reduceat(M,bounds[:-1],axis=1)
    idx=np.argpartition(-D,K,axis=1)[:,:K]
    sc=np.take_along_axis(D,idx,1)
    o=np.argsort(-sc,axis=1)
    top.append((np.take_along_axis(idx,o,1),np.take_along_axis(sc,o,1)))
ids=np.concatenate([t[0] for t in top]); scs=np.concatenate([t[1] for t in top])
np.savez('./chunktop.npz', ids=ids, scs=scs, owner=so)
