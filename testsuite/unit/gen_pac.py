#!/usr/bin/python3
# The KERB_VALIDATION_INFO of testsuite/unit/test_pac.c (impacket_kvi_hex)
# and of testsuite/fuzz/corpus/fuzz_pac/, made with impacket's NDR encoder
# (python3-impacket), an implementation independent of smbd/auth/pac.c.
# Usage: /usr/bin/python3 testsuite/unit/gen_pac.py   (prints the hex)
import sys, struct, binascii
from impacket.krb5.pac import KERB_VALIDATION_INFO, VALIDATION_INFO, KERB_SID_AND_ATTRIBUTES, PKERB_SID_AND_ATTRIBUTES_ARRAY
from impacket.dcerpc.v5.dtypes import RPC_SID, NULL
from impacket.dcerpc.v5.ndr import NDRULONG
from impacket.dcerpc.v5.samr import GROUP_MEMBERSHIP, USER_NORMAL_ACCOUNT, USER_DONT_EXPIRE_PASSWORD
from impacket.dcerpc.v5.rpcrt import TypeSerialization1
k = KERB_VALIDATION_INFO()
for f in ('LogonTime','LogoffTime','KickOffTime','PasswordLastSet','PasswordCanChange','PasswordMustChange','LastSuccessfulILogon','LastFailedILogon'):
    k[f]['dwLowDateTime']=0x11223344; k[f]['dwHighDateTime']=0x01d90000
k['EffectiveName']='alice'; k['FullName']='Alice \u00c4rger'
for f in ('LogonScript','ProfilePath','HomeDirectory','HomeDirectoryDrive'): k[f]=''
k['LogonCount']=5; k['BadPasswordCount']=0
k['UserId']=1103; k['PrimaryGroupId']=513
groups=[513,1105,512]
k['GroupCount']=len(groups)
for g in groups:
    gm=GROUP_MEMBERSHIP(); x=NDRULONG(); x['Data']=g; gm['RelativeId']=x; gm['Attributes']=7; k['GroupIds'].append(gm)
k['UserFlags']=0x20|0x200
k['UserSessionKey']=b'\0'*16
k['LogonServer']='DC1'; k['LogonDomainName']='SMBNG'
k['LogonDomainId'].fromCanonical('S-1-5-21-1111-2222-3333')
k['LMKey']=b'\0'*8
k['UserAccountControl']=USER_NORMAL_ACCOUNT|USER_DONT_EXPIRE_PASSWORD
k['SubAuthStatus']=0; k['FailedILogonCount']=0; k['Reserved3']=0
k['ExtraSids']=PKERB_SID_AND_ATTRIBUTES_ARRAY()
for e in ('S-1-18-1','S-1-5-21-4444-5555-6666-1000'):
    r=KERB_SID_AND_ATTRIBUTES(); s=RPC_SID(); s.fromCanonical(e); r['Sid']=s; r['Attributes']=7; k['ExtraSids'].append(r)
k['SidCount']=2
k['ResourceGroupDomainSid'].fromCanonical('S-1-5-21-7777-8888-9999')
k['ResourceGroupCount']=1
gm=GROUP_MEMBERSHIP(); x=NDRULONG(); x['Data']=4242; gm['RelativeId']=x; gm['Attributes']=0x20000007
k['ResourceGroupIds'].append(gm)
v=VALIDATION_INFO(); v['Data']=k
blob=v.getData()+v.getDataReferents()
print(binascii.hexlify(blob).decode())
