exec(open('chunkcos.py').read().split("S=mat('susp')")[0])
import sys
m=int(sys.argv[1]); K=10; B=2000; nsrc=len(names['src'])
def prune(M):
    M=M.tocsr(); 
    for r in range(M.shape[0]):
        a,b=M.indptr[r],M.indptr[r+1]
        if b-a>m:
            d=M.data[a:b]; thr=np.partition(d,-m)[-m]
            d[d<thr]=0
    M.eliminate_zeros(); return M
S=prune(mat('susp')); T=prune(mat('src')).T.tocsc()
cap=int(sys.argv[2]); binary=sys.argv[3]=='bin'
ns=np.asarray((S>0).sum(0)).ravel(); nt=np.asarray((T>0).sum(1)).ravel()
colkeep=sp.diags(((ns+nt)<=cap).astype(np.float32))
S=(S@colkeep).tocsr()
if binary:
    S=(S>0).astype(np.float32); T=(T>0).astype(np.float32)
so=np.array(owner['susp']); to=np.array(owner['src'])
print('nnz', S.nnz, T.nnz, file=sys.stderr)
top=[]
bounds=np.searchsorted(to,np.arange(nsrc+1))
for a in range(0,S.shape[0],B):
    M=(S[a:a+B]@T).toarray()
    D=np.maximum.reduceat(M,bounds[:-1],axis=1)
    idx=np.argpartition(-D,K,axis=1)[:,:K]
    sc=np.take_along_axis(D,idx,1)
    o=np.argsort(-sc,axis=1)
    top.append((np.take_along_axis(idx,o,1),np.take_along_axis(sc,o,1)))
ids=np.concatenate([t[0] for t in top]); scs=np.concatenate([t[1] for t in top])
np.savez(f'./top{m}_{cap}_{sys.argv[3]}.npz', ids=ids, scs=scs, owner=so)
