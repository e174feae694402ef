/* OpenACC variants of cg's matvec and dot on the 27-point Poisson matrix. */
#include <openacc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static int cmp(const void*a,const void*b){double x=*(const double*)a,y=*(const double*)b;return x<y?-1:x>y;}
#define REPS 15
#define TIME(name, bytes, call) do { double t[REPS]; call; call; for(int r_=0;r_<REPS;r_++){double t0=now(); call; acc_wait_all(); t[r_]=now()-t0;} qsort(t,REPS,sizeof*t,cmp); printf("%-28s %9.4f ms %8.1f GB/s\n", name, t[REPS/2]*1e3, (bytes)/t[REPS/2]*1e-9); } while(0)

static void mv_worker(int64_t rows,const int64_t*restrict o,const int32_t*restrict c,const double*restrict v,const double*restrict x,double*restrict y){
#pragma acc parallel loop gang worker num_workers(8) vector_length(32) deviceptr(o,c,v,x,y)
 for(int64_t r=0;r<rows;r++){double s=0;
#pragma acc loop vector reduction(+:s)
  for(int64_t e=o[r];e<o[r+1];e++) s+=v[e]*x[c[e]]; y[r]=s;}}
static void mv_vec32(int64_t rows,const int64_t*restrict o,const int32_t*restrict c,const double*restrict v,const double*restrict x,double*restrict y){
#pragma acc parallel loop gang vector_length(32) deviceptr(o,c,v,x,y)
 for(int64_t r=0;r<rows;r++){double s=0;
#pragma acc loop vector reduction(+:s)
  for(int64_t e=o[r];e<o[r+1];e++) s+=v[e]*x[c[e]]; y[r]=s;}}
static void mv_thread(int64_t rows,const int64_t*restrict o,const int32_t*restrict c,const double*restrict v,const double*restrict x,double*restrict y){
#pragma acc parallel loop gang vector vector_length(128) deviceptr(o,c,v,x,y)
 for(int64_t r=0;r<rows;r++){double s=0;
#pragma acc loop seq
  for(int64_t e=o[r];e<o[r+1];e++) s+=v[e]*x[c[e]]; y[r]=s;}}
static void mv_worker4(int64_t rows,const int64_t*restrict o,const int32_t*restrict c,const double*restrict v,const double*restrict x,double*restrict y){
#pragma acc parallel loop gang worker num_workers(4) vector_length(32) deviceptr(o,c,v,x,y)
 for(int64_t r=0;r<rows;r++){double s=0;
#pragma acc loop vector reduction(+:s)
  for(int64_t e=o[r];e<o[r+1];e++) s+=v[e]*x[c[e]]; y[r]=s;}}

static double dot_clause(int64_t n,const double*x,const double*y){double s=0;
#pragma acc parallel loop deviceptr(x,y) reduction(+:s)
 for(int64_t i=0;i<n;i++) s+=x[i]*y[i]; return s;}
static double dot_clause256(int64_t n,const double*x,const double*y){double s=0;
#pragma acc parallel loop gang vector vector_length(256) deviceptr(x,y) reduction(+:s)
 for(int64_t i=0;i<n;i++) s+=x[i]*y[i]; return s;}
static double dot_clause_g(int64_t n,const double*x,const double*y){double s=0;
#pragma acc parallel loop gang vector num_gangs(528) vector_length(256) deviceptr(x,y) reduction(+:s)
 for(int64_t i=0;i<n;i++) s+=x[i]*y[i]; return s;}
#define G 1024
static double dot_gangs(int64_t n,const double*x,const double*y,double*p){int64_t piece=(n+G-1)/G;
#pragma acc parallel loop gang num_gangs(G) vector_length(256) deviceptr(x,y,p)
 for(int g=0;g<G;g++){int64_t b=g*piece<n?g*piece:n,e=b+piece<n?b+piece:n;double s=0;
#pragma acc loop vector reduction(+:s)
  for(int64_t i=b;i<e;i++) s+=x[i]*y[i]; p[g]=s;}
 double s=0;
#pragma acc parallel loop vector_length(256) deviceptr(p) reduction(+:s)
 for(int g=0;g<G;g++) s+=p[g]; return s;}
static double dot_gangs_host(int64_t n,const double*x,const double*y,double*p){int64_t piece=(n+G-1)/G;
#pragma acc parallel loop gang num_gangs(G) vector_length(256) deviceptr(x,y,p)
 for(int g=0;g<G;g++){int64_t b=g*piece<n?g*piece:n,e=b+piece<n?b+piece:n;double s=0;
#pragma acc loop vector reduction(+:s)
  for(int64_t i=b;i<e;i++) s+=x[i]*y[i]; p[g]=s;}
 double h[G]; acc_memcpy_from_device(h,p,sizeof h); double s=0; for(int g=0;g<G;g++) s+=h[g]; return s;}
static void empty(double *p){
#pragma acc parallel num_gangs(1) vector_length(32) deviceptr(p)
 { p[0]=1; } }
static void copyk(int64_t n,const double*restrict x,double*restrict y){
#pragma acc parallel loop gang vector vector_length(256) deviceptr(x,y)
 for(int64_t i=0;i<n;i++) y[i]=x[i];}

int main(int argc,char**argv){
 int64_t n=argc>1?atoll(argv[1]):201, rows=n*n*n;
 int64_t *o=malloc((rows+1)*8); int64_t nnz=0; o[0]=0;
 for(int64_t r=0;r<rows;r++){int64_t i=r%n,j=r/n%n,k=r/n/n;int c=0;for(int dk=-1;dk<=1;dk++)for(int dj=-1;dj<=1;dj++)for(int di=-1;di<=1;di++) if(i+di>=0&&i+di<n&&j+dj>=0&&j+dj<n&&k+dk>=0&&k+dk<n)c++; nnz+=c; o[r+1]=nnz;}
 int32_t *c=malloc(nnz*4); double *v=malloc(nnz*8);
 for(int64_t r=0;r<rows;r++){int64_t i=r%n,j=r/n%n,k=r/n/n,e=o[r];for(int dk=-1;dk<=1;dk++)for(int dj=-1;dj<=1;dj++)for(int di=-1;di<=1;di++) if(i+di>=0&&i+di<n&&j+dj>=0&&j+dj<n&&k+dk>=0&&k+dk<n){c[e]=(int32_t)(r+di+n*(dj+n*dk));v[e]=(di||dj||dk)?-1:27;e++;}}
 double *x=malloc(rows*8); for(int64_t r=0;r<rows;r++) x[r]=1.0/(1+r%7);
 acc_init(acc_device_default);
 int64_t*dO=acc_malloc((rows+1)*8); int32_t*dC=acc_malloc(nnz*4); double*dV=acc_malloc(nnz*8),*dX=acc_malloc(rows*8),*dY=acc_malloc(rows*8),*dP=acc_malloc(G*8);
 acc_memcpy_to_device(dO,o,(rows+1)*8); acc_memcpy_to_device(dC,c,nnz*4); acc_memcpy_to_device(dV,v,nnz*8); acc_memcpy_to_device(dX,x,rows*8); acc_memcpy_to_device(dY,x,rows*8);
 printf("n=%lld rows=%lld nnz=%lld\n",(long long)n,(long long)rows,(long long)nnz);
 double mb=(double)nnz*12+(rows+1)*8+2.0*rows*8, db=16.0*rows;
 TIME("empty region", 8, empty(dP));
 TIME("copy 256", 16.0*rows, copyk(rows,dX,dY));
 TIME("matvec worker8x32", mb, mv_worker(rows,dO,dC,dV,dX,dY));
 TIME("matvec worker4x32", mb, mv_worker4(rows,dO,dC,dV,dX,dY));
 TIME("matvec gang x vec32", mb, mv_vec32(rows,dO,dC,dV,dX,dY));
 TIME("matvec row/thread 128", mb, mv_thread(rows,dO,dC,dV,dX,dY));
 volatile double s; 
 TIME("dot clause default", db, s=dot_clause(rows,dX,dY));
 TIME("dot clause vl256", db, s=dot_clause256(rows,dX,dY));
 TIME("dot clause 528x256", db, s=dot_clause_g(rows,dX,dY));
 TIME("dot gangs 1024x256 +region", db, s=dot_gangs(rows,dX,dY,dP));
 TIME("dot gangs 1024x256 +host", db, s=dot_gangs_host(rows,dX,dY,dP));
 (void)s; return 0;}
