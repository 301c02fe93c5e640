import subprocess, sys, json, threading, time, http.client, urllib.parse
P="/work/wt/db/target/release/ply"
args=sys.argv[1:]
sol=json.loads(subprocess.run([P,"solve","euler:5x5","--json","--db-dir","/tmp/dbb"],capture_output=True,text=True).stdout)
positions=[None]+[m["position"] for m in sol["moves"]]
t0=time.time()
srv=subprocess.Popen([P,"serve","--addr","127.0.0.1:0"]+args,stdout=subprocess.PIPE,stderr=subprocess.DEVNULL,text=True)
line=srv.stdout.readline()
while "http://" not in line: line=srv.stdout.readline()
ready=time.time()-t0
addr=line.split("http://")[1].split("/")[0]
host,port=addr.split(":")
lat=[];lock=threading.Lock()
def client(i):
    c=http.client.HTTPConnection(host,int(port))
    for k in range(40):
        p=positions[(i*7+k)%len(positions)]
        q={"game":"euler:5x5"}
        if p is not None:q["position"]=p
        s=time.time();c.request("GET","/api/solve?"+urllib.parse.urlencode(q));r=c.getresponse();r.read();e=time.time()-s
        assert r.status==200,r.status
        with lock: lat.append(e)
ts=[threading.Thread(target=client,args=(i,)) for i in range(16)]
[t.start() for t in ts];[t.join() for t in ts]
srv.terminate();srv.wait()
lat.sort()
print(f"{' '.join(args)}: ready after {ready*1000:.0f} ms; {len(lat)} requests, p50 {lat[len(lat)//2]*1000:.1f} ms, p99 {lat[int(len(lat)*0.99)-1]*1000:.1f} ms, max {lat[-1]*1000:.1f} ms")
