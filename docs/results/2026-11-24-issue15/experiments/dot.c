#include <openacc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static int cmp(const void*a,const void*b){double x=*(const double*)a,y=*(const double*)b;return x<y?-1:x>y;}
#define PRAGMA(t) _Pragma(#t)
#define ACC(t) PRAGMA(acc t)
#define REPS 21
#define TIME(name, bytes, call) do { double t[REPS]; call; call; for(int r_=0;r_<REPS;r_++){double t0=now(); call; acc_wait_all(); t[r_]=now()-t0;} qsort(t,REPS,sizeof*t,cmp); printf("%-30s %9.4f ms %8.1f GB/s  %.17g\n", name, t[REPS/2]*1e3, (bytes)/t[REPS/2]*1e-9, (double)s); } while(0)
#define STAGE2(G) double s=0; \
 _Pragma("acc parallel loop gang vector num_gangs(1) vector_length(32) deviceptr(p) reduction(+:s)") \
 for(int g=0;g<G;g++) s+=p[g]; return s;
#define DOT1(name,G,VL) static double name(int64_t n,const double*restrict x,const double*restrict y,double*restrict p){int64_t piece=(n+G-1)/G; \
 ACC(parallel loop gang num_gangs(G) vector_length(VL) deviceptr(x,y,p)) \
 for(int g=0;g<G;g++){int64_t b=g*piece<n?g*piece:n,e=b+piece<n?b+piece:n;double s=0; \
  ACC(loop vector reduction(+:s)) \
  for(int64_t i=b;i<e;i++) s+=x[i]*y[i]; p[g]=s;} \
 STAGE2(G) }
DOT1(d1024x256,1024,256)
DOT1(d2112x32,2112,32)
DOT1(d4224x32,4224,32)
DOT1(d1056x64,1056,64)
/* 4 streams per lane */
#define DOT4(name,G,VL) static double name(int64_t n,const double*restrict x,const double*restrict y,double*restrict p){int64_t piece=(n+G-1)/G; \
 ACC(parallel loop gang num_gangs(G) vector_length(VL) deviceptr(x,y,p)) \
 for(int g=0;g<G;g++){int64_t b=g*piece<n?g*piece:n,e=b+piece<n?b+piece:n,q=(e-b)/4;double s=0; \
  ACC(loop vector reduction(+:s)) \
  for(int64_t j=0;j<q;j++) s+=x[b+j]*y[b+j]+x[b+q+j]*y[b+q+j]+x[b+2*q+j]*y[b+2*q+j]+x[b+3*q+j]*y[b+3*q+j]; \
  double t=0; \
  ACC(loop vector reduction(+:t)) \
  for(int64_t i=b+4*q;i<e;i++) t+=x[i]*y[i]; p[g]=s+t;} \
 STAGE2(G) }
DOT4(d2112x32u4,2112,32)
DOT4(d4224x32u4,4224,32)
static void copyk(int64_t n,const double*restrict x,double*restrict y){
#pragma acc parallel loop gang vector vector_length(256) deviceptr(x,y)
 for(int64_t i=0;i<n;i++) y[i]=x[i];}
int main(int argc,char**argv){
 int64_t n=argc>1?atoll(argv[1]):8120601; if(n<1||n>(1ll<<31))return 1;
 double *h=malloc((size_t)n*8); for(int64_t r=0;r<n;r++) h[r]=1.0/(1+r%7);
 acc_init(acc_device_default);
 double*x=acc_malloc(n*8),*y=acc_malloc(n*8),*p=acc_malloc(8192*8),*z=acc_malloc(n*8);
 acc_memcpy_to_device(x,h,n*8); acc_memcpy_to_device(y,h,n*8);
 double db=16.0*n; volatile double s=0;
 printf("n=%lld\n",(long long)n);
 TIME("copy 256", db, copyk(n,x,z));
 TIME("dot 1024x256", db, s=d1024x256(n,x,y,p));
 TIME("dot 1056x64", db, s=d1056x64(n,x,y,p));
 TIME("dot 2112x32", db, s=d2112x32(n,x,y,p));
 TIME("dot 4224x32", db, s=d4224x32(n,x,y,p));
 TIME("dot 2112x32 x4", db, s=d2112x32u4(n,x,y,p));
 TIME("dot 4224x32 x4", db, s=d4224x32u4(n,x,y,p));
 return 0;}
