#include <openacc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static int cmp(const void*a,const void*b){double x=*(const double*)a,y=*(const double*)b;return x<y?-1:x>y;}
#define REPS 21
#define TIME(name, bytes, call) do { double t[REPS]; call; call; for(int r_=0;r_<REPS;r_++){double t0=now(); call; acc_wait_all(); t[r_]=now()-t0;} qsort(t,REPS,sizeof*t,cmp); printf("%-34s %9.4f ms %8.1f GB/s\n", name, t[REPS/2]*1e3, (bytes)/t[REPS/2]*1e-9); } while(0)
static void t_default(int64_t n,const double*restrict a,const double*restrict b,double*restrict c,double s){
#pragma acc parallel loop deviceptr(a,b,c)
 for(int64_t i=0;i<n;i++) c[i]=a[i]+s*b[i];}
static void t_vl256(int64_t n,const double*restrict a,const double*restrict b,double*restrict c,double s){
#pragma acc parallel loop gang vector vector_length(256) deviceptr(a,b,c)
 for(int64_t i=0;i<n;i++) c[i]=a[i]+s*b[i];}
static void t_vl1024(int64_t n,const double*restrict a,const double*restrict b,double*restrict c,double s){
#pragma acc parallel loop gang vector vector_length(1024) deviceptr(a,b,c)
 for(int64_t i=0;i<n;i++) c[i]=a[i]+s*b[i];}
static void t_onepl256(int64_t n,const double*restrict a,const double*restrict b,double*restrict c,double s){
 int g=(int)((n+255)/256);
#pragma acc parallel loop gang vector num_gangs(g) vector_length(256) deviceptr(a,b,c)
 for(int64_t i=0;i<n;i++) c[i]=a[i]+s*b[i];}
static void t_onepl128(int64_t n,const double*restrict a,const double*restrict b,double*restrict c,double s){
 int g=(int)((n+127)/128);
#pragma acc parallel loop gang vector num_gangs(g) vector_length(128) deviceptr(a,b,c)
 for(int64_t i=0;i<n;i++) c[i]=a[i]+s*b[i];}
static void t_g1056(int64_t n,const double*restrict a,const double*restrict b,double*restrict c,double s){
#pragma acc parallel loop gang vector num_gangs(1056) vector_length(256) deviceptr(a,b,c)
 for(int64_t i=0;i<n;i++) c[i]=a[i]+s*b[i];}
static void t_rows(int64_t n,const double*restrict a,const double*restrict b,double*restrict c,double s){
 int64_t rows=(n+255)/256;
#pragma acc parallel loop gang vector_length(256) deviceptr(a,b,c)
 for(int64_t r=0;r<rows;r++){
#pragma acc loop vector
  for(int64_t j=0;j<256;j++){int64_t i=r*256+j; if(i<n) c[i]=a[i]+s*b[i];}}}
static void c_vl256(int64_t n,const double*restrict a,double*restrict c){
#pragma acc parallel loop gang vector vector_length(256) deviceptr(a,c)
 for(int64_t i=0;i<n;i++) c[i]=a[i];}
static void c_onepl256(int64_t n,const double*restrict a,double*restrict c){
 int g=(int)((n+255)/256);
#pragma acc parallel loop gang vector num_gangs(g) vector_length(256) deviceptr(a,c)
 for(int64_t i=0;i<n;i++) c[i]=a[i];}
static void c_rows(int64_t n,const double*restrict a,double*restrict c){
 int64_t rows=(n+255)/256;
#pragma acc parallel loop gang vector_length(256) deviceptr(a,c)
 for(int64_t r=0;r<rows;r++){
#pragma acc loop vector
  for(int64_t j=0;j<256;j++){int64_t i=r*256+j; if(i<n) c[i]=a[i];}}}
int main(int argc,char**argv){
 int64_t n=argc>1?atoll(argv[1]):134217728;
 acc_init(acc_device_default);
 double*a=acc_malloc(n*8),*b=acc_malloc(n*8),*c=acc_malloc(n*8); t_default(n,c,c,a,0.5); t_default(n,c,c,b,0.5);
 printf("n=%lld\n",(long long)n);
 for(int rep=0;rep<2;rep++){
 TIME("triad default", 24.0*n, t_default(n,a,b,c,0.3));
 TIME("triad vl256", 24.0*n, t_vl256(n,a,b,c,0.3));
 TIME("triad vl1024", 24.0*n, t_vl1024(n,a,b,c,0.3));
 TIME("triad 1/lane vl256", 24.0*n, t_onepl256(n,a,b,c,0.3));
 TIME("triad 1/lane vl128", 24.0*n, t_onepl128(n,a,b,c,0.3));
 TIME("triad 1056 gangs vl256", 24.0*n, t_g1056(n,a,b,c,0.3));
 TIME("triad rows of 256", 24.0*n, t_rows(n,a,b,c,0.3));
 TIME("copy vl256", 16.0*n, c_vl256(n,a,c));
 TIME("copy 1/lane vl256", 16.0*n, c_onepl256(n,a,c));
 TIME("copy rows of 256", 16.0*n, c_rows(n,a,c));
 }
 return 0;}
