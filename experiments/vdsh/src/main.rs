//! Learned semantic hashing (VDSH, Chaidaroon and Fang 2017) and random projection as candidate
//! generators for `textreuse reuse`, measured on a PAN text-alignment corpus run as a corpus
//! (every suspicious document against every source, no pairs file).
//!
//! ```sh
//! cargo run --release -- PAN_DIR OUT_DIR [BITS] [EPOCHS] [VOCAB]
//! textreuse pan-eval --truth PAN_DIR --candidates OUT_DIR/vdsh-BITS
//! ```
//!
//! Chunks and their tf-idf vectors are `textreuse reuse`'s own (`Reuse::chunk_vectors`, all
//! terms kept, document frequencies over both sides). Each method gives every chunk a
//! `BITS`-bit code; each suspicious chunk nominates the `TOP_DOCS` source documents with the
//! nearest codes (Hamming distance of their best chunk, ties by document number), as the tf-idf
//! search nominates by score. The nominations are written as `pairs.tsv` in the CLI's format,
//! so `textreuse pan-eval --candidates` measures them like the CLI's candidates.
//!
//! - `vdsh-BITS`: a VDSH model trained on the corpus's own chunk vectors (no labels): encoder
//!   `VOCAB -> 500 -> 500 -> (mu, log var)` of `BITS` Gaussian latents, decoder softmax over
//!   the `VOCAB` most frequent terms, loss reconstruction + KL; codes are `mu` thresholded at
//!   each dimension's median.
//! - `rp-BITS`: random projection (SimHash) of the full tf-idf vector: bit `j` is the sign of
//!   `sum_t w_t g(t, j)`, `g` Gaussian from a hash of the term and `j`.
use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use candle_core::{D, DType, Device, Module, Tensor};
use candle_nn::{AdamW, Linear, Optimizer, ParamsAdamW, VarBuilder, VarMap, linear};
use rayon::prelude::*;
use textreuse_reuse::Reuse;

const TOP_DOCS: usize = 5;
const HIDDEN: usize = 500;
const BATCH: usize = 256;

/// A document: its file stem and text.
struct Doc {
    title: String,
    text: String,
}

fn read_dir(dir: &Path) -> Result<Vec<Doc>> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    paths.retain(|p| p.extension().is_some_and(|e| e == "txt"));
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = fs::read_to_string(&p).with_context(|| format!("{}", p.display()))?;
            let title = p.file_stem().unwrap().to_string_lossy().into_owned();
            Ok(Doc { title, text })
        })
        .collect()
}

/// The chunks of all documents: owner document and full tf-idf vector.
struct Chunks {
    owner: Vec<u32>,
    vectors: Vec<Vec<(u64, f32)>>,
}

fn chunks(docs: &[Doc]) -> Result<Chunks> {
    let job = Reuse::builder().terms(1 << 20).build()?;
    let mut df: HashMap<u64, u32> = HashMap::new();
    for terms in docs.par_iter().map(|d| Reuse::document_terms(&d.text)).collect::<Vec<_>>() {
        for t in terms {
            *df.entry(t).or_default() += 1;
        }
    }
    let per_doc: Vec<Vec<Vec<(u64, f32)>>> = docs
        .par_iter()
        .map(|d| {
            let lookup = |t| df.get(&t).copied().unwrap_or(1);
            job.chunk_vectors(&d.text, lookup, docs.len() as u64)
        })
        .collect();
    let mut out = Chunks { owner: Vec::new(), vectors: Vec::new() };
    for (i, vs) in per_doc.into_iter().enumerate() {
        for v in vs {
            out.owner.push(i as u32);
            out.vectors.push(v);
        }
    }
    Ok(out)
}

/// A 64-bit mix (splitmix64's finalizer).
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A standard normal value from a hash (Box-Muller).
fn gaussian(key: u64) -> f32 {
    let a = mix(key);
    let b = mix(a ^ 0x9e37_79b9_7f4a_7c15);
    let u1 = ((a >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
    let u2 = (b >> 11) as f64 / (1u64 << 53) as f64;
    ((-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()) as f32
}

type Code = Vec<u64>;

fn pack(bits: impl Iterator<Item = bool>, nbits: usize) -> Code {
    let mut code = vec![0u64; nbits.div_ceil(64)];
    for (j, b) in bits.enumerate() {
        if b {
            code[j / 64] |= 1 << (j % 64);
        }
    }
    code
}

fn random_projection(c: &Chunks, nbits: usize) -> Vec<Code> {
    c.vectors
        .par_iter()
        .map(|v| {
            let mut acc = vec![0f32; nbits];
            for &(t, w) in v {
                for (j, a) in acc.iter_mut().enumerate() {
                    *a += w * gaussian(t.wrapping_mul(0x100_0000_01b3) ^ j as u64);
                }
            }
            pack(acc.iter().map(|&a| a > 0.0), nbits)
        })
        .collect()
}

struct Vdsh {
    enc1: Linear,
    enc2: Linear,
    mu: Linear,
    logvar: Linear,
    dec: Linear,
}

impl Vdsh {
    fn new(vb: &VarBuilder, vocab: usize, nbits: usize) -> Result<Vdsh> {
        Ok(Vdsh {
            enc1: linear(vocab, HIDDEN, vb.pp("enc1"))?,
            enc2: linear(HIDDEN, HIDDEN, vb.pp("enc2"))?,
            mu: linear(HIDDEN, nbits, vb.pp("mu"))?,
            logvar: linear(HIDDEN, nbits, vb.pp("logvar"))?,
            dec: linear(nbits, vocab, vb.pp("dec"))?,
        })
    }

    fn encode(&self, x: &Tensor) -> Result<(Tensor, Tensor)> {
        let h = self.enc1.forward(x)?.relu()?;
        let h = self.enc2.forward(&h)?.relu()?;
        Ok((self.mu.forward(&h)?, self.logvar.forward(&h)?))
    }

    /// Reconstruction (cross-entropy of the target distribution) plus KL, batch means.
    fn loss(&self, x: &Tensor, target: &Tensor) -> Result<(Tensor, f32, f32)> {
        let (mu, logvar) = self.encode(x)?;
        let eps = mu.randn_like(0.0, 1.0)?;
        let z = (&mu + eps.mul(&(logvar.clone() * 0.5)?.exp()?)?)?;
        let logp = candle_nn::ops::log_softmax(&self.dec.forward(&z)?, D::Minus1)?;
        let rec = (target.mul(&logp)?.sum(D::Minus1)?.neg()?).mean(0)?;
        let terms = ((logvar.exp()? + mu.sqr()?)? - logvar)?.affine(1.0, -1.0)?;
        let kl = (terms.sum(D::Minus1)? * 0.5)?.mean(0)?;
        let loss = (&rec + &kl)?;
        let (r, k) = (rec.to_scalar::<f32>()?, kl.to_scalar::<f32>()?);
        Ok((loss, r, k))
    }
}

/// Dense rows of chunks `ids` over the vocabulary: the input (L2-normalised weights) and the
/// target (weights as a distribution scaled to the chunk's term count, like word counts).
fn batch(c: &Chunks, vocab: &HashMap<u64, usize>, ids: &[usize], dev: &Device) -> Result<(Tensor, Tensor)> {
    let v = vocab.len();
    let (mut x, mut t) = (vec![0f32; ids.len() * v], vec![0f32; ids.len() * v]);
    for (r, &i) in ids.iter().enumerate() {
        let kept: Vec<(usize, f32)> = c.vectors[i]
            .iter()
            .filter_map(|(term, w)| vocab.get(term).map(|&j| (j, *w)))
            .collect();
        let norm = kept.iter().map(|(_, w)| w * w).sum::<f32>().sqrt().max(1e-9);
        let sum = kept.iter().map(|(_, w)| w).sum::<f32>().max(1e-9);
        for &(j, w) in &kept {
            x[r * v + j] = w / norm;
            t[r * v + j] = w / sum * kept.len() as f32;
        }
    }
    Ok((
        Tensor::from_vec(x, (ids.len(), v), dev)?,
        Tensor::from_vec(t, (ids.len(), v), dev)?,
    ))
}

fn vdsh(c: &Chunks, nbits: usize, epochs: usize, vocab_size: usize) -> Result<Vec<Code>> {
    // The most frequent terms (by chunks), ties by key.
    let mut freq: HashMap<u64, u32> = HashMap::new();
    for v in &c.vectors {
        for &(t, _) in v {
            *freq.entry(t).or_default() += 1;
        }
    }
    let mut terms: Vec<(u64, u32)> = freq.into_iter().filter(|&(_, n)| n >= 2).collect();
    terms.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    terms.truncate(vocab_size);
    let vocab: HashMap<u64, usize> = terms.iter().enumerate().map(|(j, &(t, _))| (t, j)).collect();
    let dev = Device::Cpu;
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &dev);
    let model = Vdsh::new(&vb, vocab.len(), nbits)?;
    let mut opt = AdamW::new(
        varmap.all_vars(),
        ParamsAdamW { lr: 1e-3, weight_decay: 0.0, ..Default::default() },
    )?;
    let mut order: Vec<usize> = (0..c.vectors.len()).collect();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for epoch in 0..epochs {
        let started = Instant::now();
        for i in (1..order.len()).rev() {
            state = mix(state);
            order.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let (mut rec_sum, mut kl_sum, mut n) = (0f64, 0f64, 0usize);
        for ids in order.chunks(BATCH) {
            let (x, t) = batch(c, &vocab, ids, &dev)?;
            let (loss, r, k) = model.loss(&x, &t)?;
            opt.backward_step(&loss)?;
            rec_sum += f64::from(r);
            kl_sum += f64::from(k);
            n += 1;
        }
        eprintln!(
            "vdsh-{nbits}: epoch {} reconstruction {:.3} KL {:.3} in {:.0} s",
            epoch + 1,
            rec_sum / n as f64,
            kl_sum / n as f64,
            started.elapsed().as_secs_f64()
        );
    }
    // Codes: mu thresholded at each dimension's median.
    let mut mus: Vec<f32> = Vec::with_capacity(c.vectors.len() * nbits);
    let all: Vec<usize> = (0..c.vectors.len()).collect();
    for ids in all.chunks(1024) {
        let (x, _) = batch(c, &vocab, ids, &dev)?;
        let (mu, _) = model.encode(&x)?;
        mus.extend(mu.flatten_all()?.to_vec1::<f32>()?);
    }
    let medians: Vec<f32> = (0..nbits)
        .map(|j| {
            let mut col: Vec<f32> = mus.iter().skip(j).step_by(nbits).copied().collect();
            let mid = col.len() / 2;
            *col.select_nth_unstable_by(mid, f32::total_cmp).1
        })
        .collect();
    Ok(mus
        .chunks(nbits)
        .map(|row| pack(row.iter().zip(&medians).map(|(m, med)| m > med), nbits))
        .collect())
}

/// Each suspicious chunk's `TOP_DOCS` source documents by their nearest chunk's Hamming
/// distance (ties by number): the candidate pairs `(suspicious, source)`.
fn candidates(c: &Chunks, codes: &[Code], n_susp: usize) -> BTreeSet<(u32, u32)> {
    let src: Vec<usize> = (0..codes.len()).filter(|&i| c.owner[i] as usize >= n_susp).collect();
    let picks: Vec<Vec<(u32, u32)>> = (0..codes.len())
        .into_par_iter()
        .filter(|&i| (c.owner[i] as usize) < n_susp)
        .map(|i| {
            let mut best: Vec<(u32, u32)> = Vec::new(); // (distance, doc), src chunks by doc
            for &j in &src {
                let d: u32 = codes[i].iter().zip(&codes[j]).map(|(a, b)| (a ^ b).count_ones()).sum();
                let doc = c.owner[j];
                match best.last_mut() {
                    Some((bd, bdoc)) if *bdoc == doc => *bd = (*bd).min(d),
                    _ => best.push((d, doc)),
                }
            }
            best.sort_unstable();
            best.truncate(TOP_DOCS);
            best.into_iter().map(|(_, doc)| (c.owner[i], doc)).collect()
        })
        .collect();
    picks.into_iter().flatten().collect()
}

/// `pairs.tsv` and the `stats.json` field `pan-eval --candidates` reads (`documents`: the
/// suspicious ones).
fn write_pairs(dir: &Path, docs: &[Doc], n_susp: usize, pairs: &BTreeSet<(u32, u32)>) -> Result<()> {
    fs::create_dir_all(dir)?;
    fs::write(dir.join("stats.json"), format!("{{\"documents\": {n_susp}}}\n"))?;
    let mut w = std::io::BufWriter::new(fs::File::create(dir.join("pairs.tsv"))?);
    writeln!(w, "{}", textreuse_reuse::PAIRS_HEADER)?;
    for &(a, b) in pairs {
        let (a, b) = (&docs[a as usize], &docs[b as usize]);
        writeln!(w, "{}\t{}\t{}\t{}\t1\t0\t0\t0", a.title, a.title, b.title, b.title)?;
    }
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let pan = PathBuf::from(args.get(1).context("usage: vdsh PAN_DIR OUT_DIR [BITS] [EPOCHS] [VOCAB]")?);
    let out = PathBuf::from(args.get(2).context("OUT_DIR")?);
    let nbits: usize = args.get(3).map_or(Ok(64), |s| s.parse())?;
    let epochs: usize = args.get(4).map_or(Ok(10), |s| s.parse())?;
    let vocab: usize = args.get(5).map_or(Ok(8192), |s| s.parse())?;
    let mut docs = read_dir(&pan.join("susp"))?;
    let n_susp = docs.len();
    docs.extend(read_dir(&pan.join("src"))?);
    let started = Instant::now();
    let c = chunks(&docs)?;
    eprintln!(
        "{n_susp} suspicious and {} source documents, {} chunks in {:.1} s",
        docs.len() - n_susp,
        c.owner.len(),
        started.elapsed().as_secs_f64()
    );
    for (name, codes) in [
        ("rp", random_projection(&c, nbits)),
        ("vdsh", {
            let started = Instant::now();
            let codes = vdsh(&c, nbits, epochs, vocab)?;
            eprintln!("vdsh-{nbits}: trained in {:.0} s", started.elapsed().as_secs_f64());
            codes
        }),
    ] {
        let started = Instant::now();
        let pairs = candidates(&c, &codes, n_susp);
        let dir = out.join(format!("{name}-{nbits}"));
        write_pairs(&dir, &docs, n_susp, &pairs)?;
        eprintln!(
            "{name}-{nbits}: {} candidate pairs ({:.1} per suspicious document) in {:.1} s -> {}",
            pairs.len(),
            pairs.len() as f64 / n_susp as f64,
            started.elapsed().as_secs_f64(),
            dir.display()
        );
    }
    Ok(())
}
