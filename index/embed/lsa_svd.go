package embed

import (
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// randomizedEig finds the top-k left singular vectors U (V×k, row-major) and
// singular values of the sparse terms×docs matrix X, by randomized subspace
// iteration on A = X·Xᵀ (Halko, Martinsson & Tropp 2011) without ever
// forming A or any docs-sized dense matrix. Memory is two V×(k+oversample)
// float64 blocks. The result does not depend on the number of workers.
func randomizedEig(x *sparseDocs, nTerms, k int, opts TrainOptions) ([]float64, []float64, error) {
	q, y, l, err := subspaceBasis(x, nTerms, min(k+opts.Oversample, nTerms), opts)
	if err != nil {
		return nil, nil, err
	}
	w, sigma, err := ritzVectors(q, y, nTerms, l, k)
	if err != nil {
		return nil, nil, err
	}
	kk := len(sigma)
	// U = Q·W, written over y (no longer needed).
	u := y[:nTerms*kk]
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, general(q, nTerms, l), general(w, l, kk), 0, general(u, nTerms, kk))
	fixSigns(u, nTerms, kk)
	return u, sigma, nil
}

// subspaceBasis runs the subspace iteration from a random start of l
// columns: it returns an orthonormal basis Q (nTerms×l, row-major), Y = AQ
// for the Rayleigh–Ritz step, and l, less when directions proved dependent.
func subspaceBasis(x *sparseDocs, nTerms, l int, opts TrainOptions) (q, y []float64, _ int, _ error) {
	q = make([]float64, nTerms*l)
	y = make([]float64, nTerms*l)
	rng := rand.New(rand.NewPCG(opts.Seed, 0x5eed))
	for i := range q {
		q[i] = rng.NormFloat64()
	}

	x.gramMul(q, y, l, opts.Workers) // Y = AΩ (full-size buffers)
	for range opts.PowerIters {
		if l = orthonormalize(y, nTerms, l, q); l == 0 {
			return nil, nil, 0, errNoSpectrum
		}
		x.gramMul(q[:nTerms*l], y[:nTerms*l], l, opts.Workers) // Y = AQ
	}
	// Final basis, then one more product for the Rayleigh–Ritz step. One
	// Gram-eigen pass leaves an orthogonality error of about eps·cond(Y)²,
	// ~1e-10 here because A's top eigenvalues span a few orders of magnitude.
	if l = orthonormalize(y, nTerms, l, q); l == 0 {
		return nil, nil, 0, errNoSpectrum
	}
	x.gramMul(q[:nTerms*l], y[:nTerms*l], l, opts.Workers)
	return q, y, l, nil
}

// ritzVectors solves the small eigenproblem T = Qᵀ A Q (l×l) and returns
// the top eigenvectors W (l×kk, row-major) and singular values of up to k
// directions with a meaningful eigenvalue (σ² > 1e-10·σ₁²).
func ritzVectors(q, y []float64, nTerms, l, k int) (w, sigma []float64, _ error) {
	// T is symmetric; its eigenpairs give A's top ones.
	t := make([]float64, l*l)
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, general(q, nTerms, l), general(y, nTerms, l), 0, general(t, l, l))
	var eig mat.EigenSym
	if !eig.Factorize(symmetrized(t, l), true) {
		return nil, nil, errNoSpectrum
	}
	vals := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)

	top := vals[l-1]
	if top <= 0 {
		return nil, nil, errNoSpectrum
	}
	w = make([]float64, 0, l*k)
	for c := l - 1; c >= 0 && len(sigma) < k; c-- {
		if vals[c] <= top*1e-10 {
			break
		}
		sigma = append(sigma, math.Sqrt(vals[c]))
	}
	kk := len(sigma)
	w = w[:l*kk]
	for i := range l {
		for j := range kk {
			w[i*kk+j] = vecs.At(i, l-1-j)
		}
	}
	return w, sigma, nil
}

// symmetrized returns (T+Tᵀ)/2 of the n×n row-major t.
func symmetrized(t []float64, n int) *mat.SymDense {
	sym := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			sym.SetSym(i, j, (t[i*n+j]+t[j*n+i])/2)
		}
	}
	return sym
}

// fixSigns flips columns of u (rows×cols, row-major) so that the
// largest-magnitude entry of each is positive.
func fixSigns(u []float64, rows, cols int) {
	for j := range cols {
		best, bi := 0.0, 0
		for i := range rows {
			if a := math.Abs(u[i*cols+j]); a > best {
				best, bi = a, i
			}
		}
		if u[bi*cols+j] < 0 {
			for i := range rows {
				u[i*cols+j] = -u[i*cols+j]
			}
		}
	}
}

func general(data []float64, rows, cols int) blas64.General {
	return blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: data[:rows*cols]}
}

// orthonormalize writes an orthonormal basis of the column space of src
// (rows×cols, row-major) into dst and returns its column count (cols minus
// numerically dependent directions). It uses the eigen-decomposition of the
// Gram matrix (like Cholesky-QR, but rank-revealing), which costs two GEMMs.
func orthonormalize(src []float64, rows, cols int, dst []float64) int {
	s := general(src, rows, cols)
	g := make([]float64, cols*cols)
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, s, s, 0, general(g, cols, cols))
	var eig mat.EigenSym
	if !eig.Factorize(symmetrized(g, cols), true) {
		return 0
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	top := vals[cols-1]
	if top <= 0 {
		return 0
	}
	keep := 0
	for c := cols - 1; c >= 0 && vals[c] > top*1e-12; c-- {
		keep++
	}
	m := make([]float64, cols*keep)
	for j := range keep {
		c := cols - 1 - j
		inv := 1 / math.Sqrt(vals[c])
		for i := range cols {
			m[i*keep+j] = vecs.At(i, c) * inv
		}
	}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, s, general(m, cols, keep), 0, general(dst, rows, keep))
	return keep
}

// gramMul computes Y = X·Xᵀ·Q for Q, Y of shape terms×l (row-major), one
// chunk of documents at a time: Z = XᵀQ for the chunk (parallel over docs),
// then Y += X·Z (parallel over term rows, each row owned by one worker and
// updated in document order, so the result is independent of workers).
func (x *sparseDocs) gramMul(q, y []float64, l, workers int) {
	clear(y)
	const chunk = 1024
	z := make([]float64, chunk*l)
	var wg sync.WaitGroup
	for c0 := 0; c0 < x.nDocs(); c0 += chunk {
		c1 := min(c0+chunk, x.nDocs())
		for _, r := range splitRange(c1-c0, workers) {
			wg.Go(func() {
				for d := c0 + r[0]; d < c0+r[1]; d++ {
					zd := z[(d-c0)*l : (d-c0+1)*l]
					clear(zd)
					for j := x.start[d]; j < x.start[d+1]; j++ {
						t := int(x.ids[j])
						floats.AddScaled(zd, float64(x.w[j]), q[t*l:(t+1)*l])
					}
				}
			})
		}
		wg.Wait()
		nw := max(1, workers)
		for w := range nw {
			wg.Go(func() {
				for d := c0; d < c1; d++ {
					zd := z[(d-c0)*l : (d-c0+1)*l]
					for j := x.start[d]; j < x.start[d+1]; j++ {
						t := int(x.ids[j])
						if t%nw == w {
							floats.AddScaled(y[t*l:(t+1)*l], float64(x.w[j]), zd)
						}
					}
				}
			})
		}
		wg.Wait()
	}
}
